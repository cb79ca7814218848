/**
 * What a program gets back from one tool call (issue 42), the same for every caller (`@mcp`, the gateway, the CLI's
 * `mcp-host run`): the result's structuredContent, else the text of a single text block, else its content array; a
 * result with `isError: true` becomes an exception in the program, its text bounded. Plain function, no I/O.
 *
 *   const value = programValue('files', 'read_file', await h.callTool('read_file', args, { by: 'model' }));
 */
import type { CallToolResult } from '@modelcontextprotocol/client';

/** Characters of a tool's error text that reach the program. */
export const MAX_PROGRAM_ERROR_CHARS = 2000;

/** The value a program sees for `result`; throws (into the program) when the tool reported an error. */
export function programValue(server: string, tool: string, result: CallToolResult): unknown {
  if (result.isError) {
    const text = result.content.map(c => (c.type === 'text' ? c.text : `[${c.type}]`)).join(' ').slice(0, MAX_PROGRAM_ERROR_CHARS);
    throw new Error(`tool "${tool}" on server "${server}" reported an error: ${text}`);
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  const [only] = result.content;
  return result.content.length === 1 && only.type === 'text' ? only.text : result.content;
}
