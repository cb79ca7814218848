/** How a negotiated protocol version reads wherever it is shown (views, CLI, logs): "MCP 2025-11-25". */
export function protocolLabel(version: string | undefined): string {
  return version ? `MCP ${version}` : 'MCP (version unknown)';
}
