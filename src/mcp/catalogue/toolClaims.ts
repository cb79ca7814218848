/**
 * How a tool's annotations are shown to people: the one predicate and the one wording per claim, used by the Tools view
 * (`toolItem`, src/views/items.ts), `mcp-host inspect` (src/cli/commands.ts) and the `@mcp` tool-call confirmation
 * (src/extension/chat/ui.ts). Annotations are the server's claims, never verified, so the words say who claims it.
 *
 * MCP 2025-06-18, schema.ts, ToolAnnotations: "readOnlyHint?: boolean; If true, the tool does not modify its
 * environment. Default: false" and "Clients should never make tool use decisions based on ToolAnnotations received
 * from untrusted servers." (What the gateway forwards to VS Code is its own rule: src/mcp/gateway/server.ts.)
 * Editor-free.
 */
import type { Tool } from '@modelcontextprotocol/client';
import * as l10n from '@vscode/l10n';

/** The server says `tool` only reads: its `annotations.readOnlyHint` is `true` (anything else, or none, is not). */
export function claimsReadOnly(tool: Pick<Tool, 'annotations'> | undefined): boolean {
  return tool?.annotations?.readOnlyHint === true;
}

/** The words for a tool whose server says it only reads (a function: the bundle is configured at activation). */
export function readOnlyNote(): string {
  return l10n.t('The server says this tool only reads (not verified).');
}

/** `readOnlyNote()` for a tool whose server says it only reads, else undefined. */
export function readOnlyNoteOf(tool: Pick<Tool, 'annotations'> | undefined): string | undefined {
  return claimsReadOnly(tool) ? readOnlyNote() : undefined;
}
