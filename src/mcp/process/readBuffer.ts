/**
 * A linear-time replacement for the SDK's stdio `ReadBuffer`.
 *
 * The SDK (1.x) concatenates the whole pending buffer on every chunk and rescans it from the start for
 * `\n`, so one 20 MB message arriving in 64 KiB chunks costs O(n²): about 11 s on a laptop-class core.
 * This buffer keeps the chunks in a list, scans each byte once, and concatenates once per message.
 * Same interface (append / readMessage / clear), same limits and errors, same message validation.
 * The host frames with LineFramer (lineFramer.ts) in its own StdioTransport; this buffer serves the bench's
 * like-for-like baseline (bench/linearStdio.ts) and the fixture harness (test/fixtures/servers/sdkHooks.ts).
 */
import { parseJSONRPCMessage } from '@modelcontextprotocol/client';
import { parseJson } from './parseJson';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';

/** The SDK's default limit for one buffered stdio message. */
export const SDK_DEFAULT_MAX_BUFFER_SIZE = 10 * 1024 * 1024;

const NEWLINE = 0x0a;

/** Splits a byte stream into newline-delimited JSON-RPC messages in linear time. */
export class LineReadBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Chunks before this index (and bytes before `scanOffset` in it) hold no newline. */
  private scanChunk = 0;
  private scanOffset = 0;
  private readonly maxBufferSize: number;

  constructor(options?: { maxBufferSize?: number }) {
    this.maxBufferSize = options?.maxBufferSize ?? SDK_DEFAULT_MAX_BUFFER_SIZE;
  }

  /** Bytes buffered and not yet returned as a message. */
  get length(): number {
    return this.size;
  }

  append(chunk: Buffer): void {
    if (this.size + chunk.length > this.maxBufferSize) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBufferSize} bytes`);
    }
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  /**
   * The next complete line as a validated message; null when no full line is buffered. As SDK v2's ReadBuffer:
   * a line that is not JSON is skipped; JSON that is not JSON-RPC throws (the line is consumed).
   */
  readMessage(): JSONRPCMessage | null {
    for (;;) {
      const line = this.readLine();
      if (line === null) return null;
      try {
        // The SDK's deserializeMessage, with keys written with an escape decoded right on Node 24 too (parseJson).
        return parseJSONRPCMessage(parseJson(line.replace(/\r$/, '')));
      } catch (err) {
        if (err instanceof SyntaxError) continue;
        throw err;
      }
    }
  }

  /** The next complete line (without `\n`), or null. */
  readLine(): string | null {
    for (; this.scanChunk < this.chunks.length; this.scanChunk++, this.scanOffset = 0) {
      const chunk = this.chunks[this.scanChunk];
      const at = chunk.indexOf(NEWLINE, this.scanOffset);
      if (at < 0) continue;
      const parts = this.chunks.slice(0, this.scanChunk);
      parts.push(chunk.subarray(0, at));
      const rest = chunk.subarray(at + 1);
      this.chunks = rest.length > 0 ? [rest, ...this.chunks.slice(this.scanChunk + 1)] : this.chunks.slice(this.scanChunk + 1);
      const lineBytes = parts.length === 1 ? parts[0] : Buffer.concat(parts);
      this.size -= lineBytes.length + 1;
      this.scanChunk = 0;
      this.scanOffset = 0;
      return lineBytes.toString('utf8');
    }
    // Nothing found: remember where to resume (the start of the next chunk to arrive).
    this.scanChunk = this.chunks.length;
    this.scanOffset = 0;
    return null;
  }

  clear(): void {
    this.chunks = [];
    this.size = 0;
    this.scanChunk = 0;
    this.scanOffset = 0;
  }
}
