/**
 * SEP-2243 custom headers (2026-07-28, Streamable HTTP): a tool whose inputSchema marks parameters with
 * `x-mcp-header` has their values mirrored into `Mcp-Param-*` headers by the SDK's `Client.callTool`
 * when it is given the tool's definition. The host calls such a tool that way; every other call keeps
 * the host's own result checks (tool results block by block).
 */
import type { Tool } from '@modelcontextprotocol/client';

/** The tool's definition when its call must go through `Client.callTool` for header mirroring. */
export function headerMirroredTool(
  tools: readonly Tool[], name: string, session: { era?: 'modern' | 'legacy'; kind: string },
): Tool | undefined {
  if (session.era !== 'modern' || session.kind !== 'streamableHttp') return undefined;
  const tool = tools.find(t => t.name === name);
  return tool && JSON.stringify(tool.inputSchema ?? {}).includes('"x-mcp-header"') ? tool : undefined;
}
