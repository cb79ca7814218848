/**
 * Names the gateway gives the servers' tools and prompts in VS Code's chat: `<server>_<name>`, unique across
 * servers, in the charset and length a tool name may have (`[A-Za-z0-9_-]`, at most {@link MAX_GATEWAY_NAME}
 * characters; VS Code adds its own prefix and the model APIs allow 64). A name that would be too long is cut and
 * given a short hash of the full name; a name already taken gets `_2`, `_3`, … Plain functions, no I/O.
 *
 *   const names = new GatewayNames();
 *   names.assign('files', 'read_file')   // 'files_read_file'
 *   names.lookup('files_read_file')      // { server: 'files', name: 'read_file' }
 */
import { createHash } from 'node:crypto';

/** Longest name handed to VS Code (its own `mcp_<label>_` prefix must still fit in 64). */
export const MAX_GATEWAY_NAME = 48;

/** `s` in the tool-name charset: every other character becomes `_`, runs of `_` shrink to one. */
export function sanitiseName(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/_{2,}/g, '_');
}

/** `<server>_<name>`, sanitised and cut to `max` (a cut name ends in 6 hex digits of the full one's hash). */
export function gatewayName(server: string, name: string, max = MAX_GATEWAY_NAME): string {
  const full = sanitiseName(`${server}_${name}`).replace(/^_+/, '') || 'tool';
  if (full.length <= max) return full;
  const hash = createHash('sha256').update(`${server}\0${name}`).digest('hex').slice(0, 6);
  return `${full.slice(0, max - 7)}_${hash}`;
}

/** One assignment of names (rebuilt whenever a list changes): gateway name ↔ (server, original name). */
export class GatewayNames {
  private readonly byName = new Map<string, { server: string; name: string }>();

  /** The unique gateway name for `name` of `server` (the first one asked keeps the plain form). */
  assign(server: string, name: string): string {
    const base = gatewayName(server, name);
    let candidate = base;
    for (let n = 2; this.byName.has(candidate.toLowerCase()); n++) {
      const suffix = `_${n}`;
      candidate = `${base.slice(0, MAX_GATEWAY_NAME - suffix.length)}${suffix}`;
    }
    this.byName.set(candidate.toLowerCase(), { server, name });
    return candidate;
  }

  /** Keeps `name` for the gateway's own use (the discovery tools): no server's tool gets it. */
  reserve(name: string): void {
    this.byName.set(name.toLowerCase(), { server: '', name });
  }

  /** The server and original name behind a gateway name (case-insensitive, as models and VS Code may fold case). */
  lookup(gatewayName: string): { server: string; name: string } | undefined {
    const hit = this.byName.get(gatewayName.toLowerCase());
    return hit && hit.server !== '' ? hit : undefined;
  }
}
