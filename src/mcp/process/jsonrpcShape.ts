/**
 * What a line from a server that is not a valid JSON-RPC message still tells us: a short reason for the
 * log, and the `id` of the request it answers (so that request fails at once instead of at its
 * timeout). Works on parsed JSON and on the cut head (or tail) of a message too large to parse.
 * SDK-agnostic: plain JSON in, plain values out.
 */
import * as l10n from '@vscode/l10n';

/** A JSON-RPC request id. */
export type JsonRpcId = string | number;

/** What is wrong with a parsed value that is not a JSON-RPC message (facts; `shapeReason` says it). */
export type ShapeProblem =
  | { kind: 'notObject'; /** `null`, or what `typeof` says. */ type: string }
  | { kind: 'batch' }
  | { kind: 'noJsonrpc' }
  | { kind: 'resultAndError' }
  | { kind: 'methodNotString' }
  | { kind: 'neither' }
  | { kind: 'malformed'; what: 'error' | 'response' | 'request'; /** The schema's first complaint. */ detail?: string };

/** Why a parsed JSON value is not a JSON-RPC message, and which request it answers (if it looks like a response). */
export interface InvalidShape {
  /** What is wrong: `shapeReason` makes the short clause ("a response with both result and error"). */
  problem: ShapeProblem;
  /** The id of the request this answers, when it is a response (no `method`) with a usable id. */
  answers?: JsonRpcId;
}

/** The short clause for a log line or a failed request, in the configured language (English in the CLI). */
export function shapeReason(p: ShapeProblem): string {
  switch (p.kind) {
    case 'notObject': return l10n.t('a JSON {0}, not an object', p.type);
    case 'batch': return l10n.t('a JSON array (batches are not part of MCP)');
    case 'noJsonrpc': return l10n.t('no "jsonrpc": "2.0"');
    case 'resultAndError': return l10n.t('a response with both result and error, which JSON-RPC forbids');
    case 'methodNotString': return l10n.t('a method that is not a string');
    case 'neither': return l10n.t('a response with neither result nor error');
    case 'malformed':
      switch (p.what) {
        case 'error': return p.detail === undefined ? l10n.t('a malformed error response') : l10n.t('a malformed error response ({0})', p.detail);
        case 'response': return p.detail === undefined ? l10n.t('a malformed response') : l10n.t('a malformed response ({0})', p.detail);
        case 'request': return p.detail === undefined ? l10n.t('a malformed request or notification') : l10n.t('a malformed request or notification ({0})', p.detail);
      }
  }
  return p satisfies never;
}

/**
 * Classify a parsed value that the JSON-RPC schema rejected. `detail` is the schema's first complaint
 * (optional), used when nothing more specific is found.
 */
export function describeInvalid(value: unknown, detail?: string): InvalidShape {
  if (value === null || typeof value !== 'object') return { problem: { kind: 'notObject', type: value === null ? 'null' : typeof value } };
  if (Array.isArray(value)) return { problem: { kind: 'batch' } };
  const o = value as Record<string, unknown>;
  const isResponse = !('method' in o) && ('result' in o || 'error' in o || 'id' in o);
  const answers = isResponse && isId(o.id) ? o.id : undefined;
  const withId = answers === undefined ? {} : { answers };
  const said = detail ? { detail } : {};
  if (o.jsonrpc !== '2.0') return { problem: { kind: 'noJsonrpc' }, ...withId };
  if ('result' in o && 'error' in o) return { problem: { kind: 'resultAndError' }, ...withId };
  if ('method' in o && typeof o.method !== 'string') return { problem: { kind: 'methodNotString' } };
  if (isResponse && !('result' in o) && !('error' in o)) return { problem: { kind: 'neither' }, ...withId };
  if (isResponse && 'error' in o) return { problem: { kind: 'malformed', what: 'error', ...said }, ...withId };
  if (isResponse) return { problem: { kind: 'malformed', what: 'response', ...said }, ...withId };
  return { problem: { kind: 'malformed', what: 'request', ...said } };
}

function isId(v: unknown): v is JsonRpcId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/** Top-level facts read from the (possibly cut) start of a JSON object. */
export interface HeadFields {
  /** The top-level `id`, if it was complete within the head. */
  id?: JsonRpcId;
  /** A top-level `method` key was seen (a request or notification, not a response). */
  method: boolean;
}

/**
 * Scan the start of a JSON object for its top-level `id` and whether it has a `method`, tolerating a cut
 * anywhere (nested `id`s inside `result` are skipped). Linear in `text`.
 */
export function readHead(text: string): HeadFields {
  const out: HeadFields = { method: false };
  const n = text.length;
  let i = 0;
  const ws = () => { while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r' || text[i] === '\n')) i++; };
  /** At a `"`: the string's end index + 1, or -1 if cut. */
  const skipString = (): number => {
    for (let j = i + 1; j < n; j++) {
      const c = text[j];
      if (c === '\\') { j++; continue; }
      if (c === '"') return j + 1;
    }
    return -1;
  };
  const readString = (): string | undefined => {
    const end = skipString();
    if (end < 0) return undefined;
    try {
      const s = JSON.parse(text.slice(i, end)) as string;
      i = end;
      return s;
    } catch {
      return undefined;
    }
  };
  /** Skip one value; false if the text ends inside it. */
  const skipValue = (): boolean => {
    ws();
    if (i >= n) return false;
    const c = text[i];
    if (c === '"') {
      const end = skipString();
      if (end < 0) return false;
      i = end;
      return true;
    }
    if (c === '{' || c === '[') {
      let depth = 0;
      while (i < n) {
        const d = text[i];
        if (d === '"') {
          const end = skipString();
          if (end < 0) return false;
          i = end;
          continue;
        }
        if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') {
          depth--;
          if (depth === 0) { i++; return true; }
        }
        i++;
      }
      return false;
    }
    while (i < n && !',}] \t\r\n'.includes(text[i])) i++;
    return i < n;
  };

  ws();
  if (text[i] !== '{') return out;
  i++;
  for (;;) {
    ws();
    if (text[i] !== '"') return out;
    const key = readString();
    if (key === undefined) return out;
    ws();
    if (text[i] !== ':') return out;
    i++;
    ws();
    if (key === 'method') out.method = true;
    if (key === 'id') {
      const start = i;
      if (!skipValue()) return out;
      const id = parseId(text.slice(start, i));
      if (id !== undefined) out.id = id;
    } else if (!skipValue()) {
      return out;
    }
    ws();
    if (text[i] !== ',') return out;
    i++;
  }
}

/** The `id` a cut message shows at its very end (`…,"id":7}` or `…,"id":7,"jsonrpc":"2.0"}`), if any. */
export function idAtEnd(tail: string): JsonRpcId | undefined {
  const m = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$/.exec(tail);
  return m ? parseId(m[1]) : undefined;
}

function parseId(token: string): JsonRpcId | undefined {
  try {
    const v = JSON.parse(token.trim()) as unknown;
    return isId(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
