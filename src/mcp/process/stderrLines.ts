/**
 * Bounds on what a server's stderr fills (docs/SECURITY.md, Threat model: "Bounded"): one line at most
 * `maxStderrLineBytes` (the rest replaced by "(N more bytes)"), the kept tail at most
 * `maxStderrTailBytes` and a number of lines. Cut after redaction, so a secret is never half shown.
 */
import { utf8Boundary } from './lineFramer';

/** `text` cut to `maxBytes` UTF-8 bytes, with " (N more bytes)" counting the rest and `moreBytes` already dropped. */
export function cutLine(text: string, maxBytes: number, moreBytes = 0): { text: string; cut: boolean } {
  if (moreBytes === 0 && text.length <= maxBytes / 3) return { text, cut: false }; // fast path: cannot exceed
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes && moreBytes === 0) return { text, cut: false };
  const end = utf8Boundary(bytes, maxBytes);
  return { text: `${bytes.toString('utf8', 0, end)} (${bytes.length - end + moreBytes} more bytes)`, cut: true };
}

/** Drop the oldest lines of `lines` (in place) until at most `maxLines` remain and they total at most `maxBytes`. */
export function trimTail(lines: string[], maxLines: number, maxBytes: number): void {
  if (lines.length > maxLines) lines.splice(0, lines.length - maxLines);
  let total = 0;
  for (const l of lines) total += Buffer.byteLength(l, 'utf8');
  while (total > maxBytes && lines.length > 1) total -= Buffer.byteLength(lines.shift()!, 'utf8');
  if (total > maxBytes && lines.length === 1) lines[0] = cutLine(lines[0], maxBytes).text;
}
