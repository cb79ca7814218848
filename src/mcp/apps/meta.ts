/**
 * MCP Apps (SEP-1865, extension `io.modelcontextprotocol/ui`): what a tool or a UI resource says about its view,
 * read defensively. A server is untrusted: every value is checked and bounded here before the editor uses it.
 * Editor-free.
 */
import type { Tool } from '@modelcontextprotocol/client';

/** The extension id the host declares in its client capabilities (`extensions`). */
export const APPS_EXTENSION_ID = 'io.modelcontextprotocol/ui';
/** The only MIME type of a UI resource the host renders. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** A longer `ui://` URI is not followed. */
export const MAX_UI_RESOURCE_URI_LENGTH = 2048;
/** A larger UI resource (its HTML) is not rendered. */
export const MAX_UI_RESOURCE_BYTES = 8 * 1024 * 1024;

/** The client capability that tells servers the host renders views (2025-11-25 `extensions`; 2026-07-28 `_meta`). */
export function appsClientCapability(): Record<string, { mimeTypes: string[] }> {
  return { [APPS_EXTENSION_ID]: { mimeTypes: [APP_MIME_TYPE] } };
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : undefined;
}

/** The `ui://` resource of a tool's view (`_meta.ui.resourceUri`, else the older flat `_meta["ui/resourceUri"]`), if valid. */
export function toolUi(tool: Pick<Tool, '_meta'> | undefined): string | undefined {
  const meta = obj(tool?._meta);
  const uri = obj(meta?.ui)?.resourceUri ?? meta?.['ui/resourceUri'];
  if (typeof uri !== 'string' || !uri.startsWith('ui://') || uri.length > MAX_UI_RESOURCE_URI_LENGTH) return undefined;
  return uri;
}

/** Who may call a tool: `_meta.ui.visibility` (default both). Anything unreadable counts as the default. */
function visibility(tool: Pick<Tool, '_meta'> | undefined): readonly string[] {
  const v = obj(obj(tool?._meta)?.ui)?.visibility;
  if (!Array.isArray(v)) return ['model', 'app'];
  const known = v.filter((x): x is string => x === 'model' || x === 'app');
  return known.length ? known : ['model', 'app'];
}

/** The model may see and call the tool (not an app-only helper like `poll-system-stats`). */
export function visibleToModel(tool: Pick<Tool, '_meta'> | undefined): boolean {
  return visibility(tool).includes('model');
}

/** A view of the same server may call the tool. */
export function visibleToApp(tool: Pick<Tool, '_meta'> | undefined): boolean {
  return visibility(tool).includes('app');
}
