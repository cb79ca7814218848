/**
 * What the CLI writes, and how it behaves as a Unix tool (docs/REDACTION.md says what is redacted where, and why):
 * - its own lines (reports, warnings, errors) pass the one redaction path (the redactors of every server the
 *   configuration defines), have control characters escaped (a server cannot move the cursor, clear the screen or
 *   fake a line of ours) and are cut to a few hundred bytes;
 * - data the user asked to see (tool results, resources, prompts, listings, `--json`) is never redacted (H402): it is
 *   what the server said, not the host's; it has C0 (but newline, tab and CRLF), ESC, DEL and C1 escaped, on a
 *   terminal or not (a pipe often ends in one: `| less -R`, a CI log), unless `--raw` asks for the bytes as sent;
 *   JSON is written by `jsonText`, so escaping it changes nothing and it stays valid JSON;
 * - a closed stdout or stderr (`mcp-host … | head -1`) ends it quietly: servers stopped, no stack trace.
 */
import { Redactor, cutBytes, redactorFor, type ServerDefinition, escapeControls, jsonText } from '../mcp';

export { escapeControls, jsonText };

let redactor: Redactor = Redactor.none;

/** From now on, every CLI line hides the secrets of these servers too. */
export function hideSecretsOf(defs: readonly ServerDefinition[]): void {
  redactor = Redactor.merge([redactor, ...defs.map(redactorFor)]);
}

/** The CLI's redactor (all servers loaded so far). */
export function cliRedactor(): Redactor {
  return redactor;
}

/** Longest line of the CLI's own reports (a server's message, one stderr line), in bytes. */
export const REPORT_LINE_BYTES = 500;

/** One of the CLI's own lines (or several, joined by newlines): redacted, escaped, each line cut. */
export function ownText(text: string, maxLineBytes = REPORT_LINE_BYTES): string {
  return redactor.text(text).split('\n').map(l => {
    const e = escapeControls(l);
    const head = cutBytes(e, maxLineBytes);
    return head.length < e.length ? `${head}… (${Buffer.byteLength(e) - Buffer.byteLength(head)} more bytes)` : e;
  }).join('\n');
}

/**
 * Data the user asked for (a tool result, a resource, a prompt, a listing, JSON): never redacted (H402: redaction
 * keeps the host's secrets out of its own output; it does not rewrite what a server says), control characters escaped
 * (line ends `\r\n` kept) unless `raw` (`--raw`: the text exactly as the server sent it).
 */
export function dataText(text: string, raw = false): string {
  return raw ? text : text.split('\r\n').map(escapeControls).join('\r\n');
}

let closedHandler: ((stream: 'stdout' | 'stderr') => void) | undefined;
let closed = false;

/** True once stdout or stderr was found closed; nothing more is written. */
export function outputClosed(): boolean {
  return closed;
}

/**
 * Watches stdout and stderr: the first write error (EPIPE when the reader went away, or any other) calls
 * `onClosed` once; later writes are dropped instead of failing again.
 */
export function watchOutput(onClosed: (stream: 'stdout' | 'stderr') => void): void {
  closedHandler = onClosed;
  for (const [name, stream] of [['stdout', process.stdout], ['stderr', process.stderr]] as const) {
    stream.on('error', () => markClosed(name));
  }
}

function markClosed(name: 'stdout' | 'stderr'): void {
  if (closed) return;
  closed = true;
  closedHandler?.(name);
}

/** Writes to a standard stream unless output is closed; a synchronous failure counts as closed too. */
export function write(stream: 'stdout' | 'stderr', text: string): void {
  if (closed) return;
  const s = stream === 'stdout' ? process.stdout : process.stderr;
  if (s.destroyed || s.writableEnded) { markClosed(stream); return; }
  try {
    s.write(text.endsWith('\n') ? text : `${text}\n`);
  } catch {
    markClosed(stream);
  }
}
