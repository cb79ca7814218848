/**
 * Fetches the `ui://` resource of a tool's view through the server's own session and checks it: the MIME type
 * the spec names, a size cap, text or base64 HTML, and the view's `_meta.ui` (CSP, permissions, border) from the
 * content or, failing that, from the listed resource. Editor-free.
 */
import type { ServerHandle } from '../api';
import { McpHostError } from '../errors';
import { APP_MIME_TYPE, MAX_UI_RESOURCE_BYTES } from './meta';
import { appCspSources, type AppCspSources } from './csp';
import * as l10n from '@vscode/l10n';

export interface AppPermissions { camera: boolean; microphone: boolean; geolocation: boolean; clipboardWrite: boolean }

export interface AppResource {
  uri: string;
  html: string;
  csp: AppCspSources;
  permissions: AppPermissions;
  prefersBorder?: boolean;
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : undefined;
}

/** `text/html;profile=mcp-app`, spaces and case aside. */
export function isAppMime(m: unknown): boolean {
  return typeof m === 'string' && m.replace(/\s+/g, '').toLowerCase() === APP_MIME_TYPE;
}

/** Reads and checks the view of `tool` of server `h`; errors name the server, the tool and the URI. */
export async function loadAppResource(h: ServerHandle, tool: string, uri: string, opts: { signal?: AbortSignal } = {}): Promise<AppResource> {
  const where = `the view of tool \`${tool}\` on server \`${h.name}\` (${uri})`;
  const r = await h.readResource(uri, { signal: opts.signal, by: 'view' });
  const contents = Array.isArray(r.contents) ? r.contents : [];
  const c = contents.find(x => x.uri === uri && isAppMime(x.mimeType)) ?? contents.find(x => isAppMime(x.mimeType));
  if (!c) {
    const got = contents.map(x => x.mimeType ?? 'no MIME type').join(', ') || 'no contents';
    throw new McpHostError(l10n.t('{0} is not an MCP App: expected MIME type {1}, got {2}', where, APP_MIME_TYPE, got));
  }
  let html: string;
  if ('text' in c && typeof c.text === 'string') {
    if (c.text.length > MAX_UI_RESOURCE_BYTES) throw new McpHostError(l10n.t('{0} is larger than {1} MiB; not rendered', where, MAX_UI_RESOURCE_BYTES / 1024 / 1024));
    html = c.text;
  } else if ('blob' in c && typeof c.blob === 'string') {
    if (c.blob.length * 0.75 > MAX_UI_RESOURCE_BYTES) throw new McpHostError(l10n.t('{0} is larger than {1} MiB; not rendered', where, MAX_UI_RESOURCE_BYTES / 1024 / 1024));
    html = Buffer.from(c.blob, 'base64').toString('utf8');
  } else {
    throw new McpHostError(l10n.t('{0} has neither text nor blob contents', where));
  }
  const listed = h.catalogue.resources.find(x => x.uri === uri);
  const ui = obj(obj(c._meta)?.ui) ?? obj(obj(listed?._meta)?.ui) ?? {};
  const perms = obj(ui.permissions) ?? {};
  return {
    uri,
    html,
    csp: appCspSources(obj(ui.csp)),
    permissions: { camera: !!obj(perms.camera), microphone: !!obj(perms.microphone), geolocation: !!obj(perms.geolocation), clipboardWrite: !!obj(perms.clipboardWrite) },
    prefersBorder: typeof ui.prefersBorder === 'boolean' ? ui.prefersBorder : undefined,
  };
}
