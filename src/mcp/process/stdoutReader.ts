/**
 * The reading side of the host's stdio transport (stdioTransport.ts): a server's stdout turned into JSON-RPC
 * messages. Lines are framed with a cap enforced while reading (lineFramer.ts); a small line is parsed as it arrives
 * (`parseJSONRPCMessage(parseJson(line))`, parseJson.ts), a big one in slices that yield to the event loop
 * (slicedJson.ts), the lines behind it queued in order and stdout paused while too many bytes wait. A response is
 * passed on only for a request of ours still waiting (H1); a line that is not JSON-RPC, over the size cap or nested
 * too deep is reported (bounded, naming the server) and fails the request it answers, if any. Kept apart from the
 * transport, whose job is the process (spawn, write, stop): this one only turns bytes into messages.
 *
 *   const reader = new StdoutReader('files', limits.maxMessageBytes, { message, dropped, pause, resume });
 *   child.stdout.on('data', chunk => reader.push(chunk));   reader.track(sent);   reader.whenParsed(() => …);
 */
import { parseJSONRPCMessage } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { HOST_REJECTED, messageOf } from '../errors';
import { limitMessage, MAX_NESTING_DEPTH, type LimitSituation } from '../limits';
import { formatBytes, formatNumber } from '../logging/humanText';
import * as l10n from '@vscode/l10n';
import { LineFramer, stripCr, utf8Boundary } from './lineFramer';
import { describeInvalid, idAtEnd, readHead, shapeReason, type JsonRpcId, type ShapeProblem } from './jsonrpcShape';
import { JsonDepthError, PARSE_SLICE_MS, SlicedJsonParser } from './slicedJson';
import { parseJson } from './parseJson';

/** Bytes of an oversized stdout line kept to find the request it answers. */
const STDOUT_HEAD_BYTES = 64 * 1024;
/** Invalid lines reported per launch; after that they are counted, not logged. */
export const MAX_REPORTED_INVALID_LINES = 100;
/** JSON-RPC internal error: the code of the responses the host makes up for requests it fails. */
const INTERNAL_ERROR = -32603;
/**
 * Lines of at least this many bytes are parsed in slices that yield to the event loop (slicedJson.ts); smaller
 * ones synchronously, as they arrive. Lines after a big one wait for it, so messages keep their order.
 */
export const SLICED_PARSE_MIN_BYTES = 1024 * 1024;
/** Lines waiting behind a big one: past this many bytes, stdout is paused until the queue drains. */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

/** The start of a dropped line, JSON-quoted (control characters escaped), and how long the whole line was when cut. */
export interface LinePreview {
  /** At most 200 characters, JSON-quoted. */
  start: string;
  /** A big line, of which only the start was decoded: its size in bytes. */
  bytes?: number;
  /** A line longer than the start shown: its length in characters. */
  chars?: number;
}

/**
 * What a server wrote that the transport dropped (issue 40: facts, never English text; `droppedMessage` says it).
 * `request`: the JSON of the id it answers; `failed`, that request was failed at once.
 */
export type DroppedLine =
  | { kind: 'tooDeep'; preview: LinePreview; /** The request it answered, failed at once. */ failed?: string }
  | { kind: 'notJson'; /** The parser's message, cut. */ detail: string; preview: LinePreview }
  | { kind: 'invalid'; problem: ShapeProblem; preview: LinePreview; request?: { id: string; failed: boolean } }
  | { kind: 'unknownId'; /** The id's JSON, cut. */ id: string }
  | { kind: 'limit'; situation: LimitSituation; /** The limit in force (bytes). */ max: number }
  | { kind: 'tooMany'; max: number };

/** The log line for a dropped line, in the configured language (English in the CLI): one whole message per situation. */
export function droppedMessage(server: string, d: DroppedLine): string {
  switch (d.kind) {
    case 'tooDeep': {
      const depth = formatNumber(MAX_NESTING_DEPTH, 'grouped');
      return d.failed === undefined
        ? l10n.t('ignored a message nested deeper than {0} levels; the host does not take it: {1}', depth, previewText(d.preview))
        : l10n.t('a message that is not valid JSON-RPC failed request {0}: a message nested deeper than {1} levels; the host does not take it: {2}', d.failed, depth, previewText(d.preview));
    }
    case 'notJson': return l10n.t('ignored a message that is not valid JSON-RPC: not JSON ({0}): {1}', d.detail, previewText(d.preview));
    case 'invalid':
      if (!d.request) return l10n.t('ignored a message that is not valid JSON-RPC: {0}: {1}', shapeReason(d.problem), previewText(d.preview));
      return d.request.failed
        ? l10n.t('a message that is not valid JSON-RPC failed request {0}: {1}: {2}', d.request.id, shapeReason(d.problem), previewText(d.preview))
        : l10n.t('ignored a message that is not valid JSON-RPC: {0} (for request {1}, which is not waiting): {2}', shapeReason(d.problem), d.request.id, previewText(d.preview));
    case 'unknownId': return l10n.t('ignored a response with an unknown message ID {0}: no request of ours is waiting for it', d.id);
    case 'limit': return limitMessage(server, d.max, d.situation);
    case 'tooMany': return l10n.t('server `{0}` sent more than {1} messages that were dropped; further ones are dropped without a message', server, String(d.max));
  }
  return d satisfies never;
}

/** A line's preview: its quoted start, and its whole size when cut. */
function previewText(p: LinePreview): string {
  if (p.bytes !== undefined) return l10n.t('{0}… ({1} bytes)', p.start, String(p.bytes));
  if (p.chars !== undefined) return l10n.t('{0}… ({1} characters)', p.start, String(p.chars));
  return p.start;
}

/** Something a server wrote that the transport dropped (not valid JSON-RPC, or over a limit): log it as a warning. */
export class StdioMessageError extends Error {
  constructor(readonly server: string, readonly dropped: DroppedLine) {
    super(droppedMessage(server, dropped));
    this.name = 'StdioMessageError';
  }
}

/**
 * The key of a request id in the set of outstanding ones: its type and its value, so a response matches a
 * request by the exact id (H1: the string "5" does not answer request 5; the SDK's own lookup would take it).
 */
export function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

/** Where the reader hands on what it read: the transport's callbacks (looked up at each call) and its stdout. */
export interface StdoutReaderSink {
  /** A message for the SDK (or an error response the host made up for a request it fails). */
  message(message: JSONRPCMessage): void;
  /** Something the server wrote was dropped. */
  dropped(error: StdioMessageError): void;
  /** Stop reading stdout (too many bytes queued behind a big line) / read on. */
  pause(): void;
  resume(): void;
}

/** A server's stdout as JSON-RPC messages, in order. See the module comment. */
export class StdoutReader {
  private invalidLines = 0;
  /** Ids of requests sent to the server and not yet answered (as strings): only these can be failed early. */
  private readonly outstanding = new Set<string>();
  /** The id an oversized line in progress was already failed for. */
  private failedForOversize: JsonRpcId | undefined;
  private readonly framer: LineFramer;
  /** Complete lines waiting to be parsed (the first one is being parsed when `parser` is set), in order. */
  private queue: Array<Buffer | PendingLine> = [];
  private queuedBytes = 0;
  private parser: SlicedJsonParser | undefined;
  private pumping: NodeJS.Immediate | undefined;
  private stdoutPaused = false;
  /** stdout ended or the child closed while lines were queued: said once the queue is empty. */
  private afterQueue: Array<() => void> = [];

  constructor(private readonly server: string, private readonly maxMessageBytes: number, private readonly sink: StdoutReaderSink) {
    this.framer = new LineFramer({ maxLineBytes: maxMessageBytes, headBytes: STDOUT_HEAD_BYTES, bigLineBytes: SLICED_PARSE_MIN_BYTES }, {
      line: bytes => this.onLine(bytes),
      bigLine: (parts, size) => this.enqueue(new PendingLine(parts, size)),
      overflow: head => this.onOversizeStart(head),
      overflowEnd: (total, head, tail) => this.onOversizeEnd(total, head, tail),
    });
  }

  /** Bytes the server wrote on stdout. */
  push(chunk: Buffer): void {
    this.framer.push(chunk);
  }

  /** stdout ended (a last line without its newline is dropped, as the SDK drops it). */
  end(): void {
    this.framer.end(false);
  }

  /** The launch stopped: forget a line in progress. */
  clear(): void {
    this.framer.clear();
  }

  /** Remembers the ids of our requests until answered or cancelled. */
  track(message: JSONRPCMessage): void {
    const m = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown } };
    if (typeof m.method !== 'string') return;
    if (m.id !== undefined) this.outstanding.add(idKey(m.id));
    else if (m.method === 'notifications/cancelled' && m.params?.requestId !== undefined) this.outstanding.delete(idKey(m.params.requestId));
  }

  /** Runs `fn` once every queued line is parsed and delivered (at once when none is). */
  whenParsed(fn: () => void): void {
    if (this.queue.length === 0) fn();
    else this.afterQueue.push(fn);
  }

  /** Forgets queued lines (the transport is stopping); pending `whenParsed` callbacks run. */
  dropQueue(): void {
    this.queue = [];
    this.queuedBytes = 0;
    this.parser = undefined;
    if (this.pumping) clearImmediate(this.pumping);
    this.pumping = undefined;
    if (this.stdoutPaused) {
      this.stdoutPaused = false;
      this.sink.resume();
    }
    const after = this.afterQueue;
    this.afterQueue = [];
    for (const fn of after) fn();
  }

  private onLine(bytes: Buffer): void {
    if (this.queue.length === 0 && bytes.length < SLICED_PARSE_MIN_BYTES) {
      this.parseNow(bytes);
      return;
    }
    // A big line, or any line behind one: parsed in order, in slices (see pump).
    this.enqueue(bytes);
  }

  private enqueue(line: Buffer | PendingLine): void {
    this.queue.push(line);
    this.queuedBytes += line.length;
    if (this.queuedBytes > MAX_QUEUED_BYTES + SLICED_PARSE_MIN_BYTES && !this.stdoutPaused) {
      this.stdoutPaused = true;
      this.sink.pause();
    }
    this.pumping ??= setImmediate(() => this.pump());
  }

  /** A small line: parsed and delivered now. */
  private parseNow(bytes: Buffer): void {
    const text = stripCr(bytes.toString('utf8'));
    if (text.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      // The SDK's deserializeMessage, with keys written with an escape decoded right on Node 24 too (parseJson).
      message = parseJSONRPCMessage(parseJson(text));
    } catch (err) {
      this.rejectLine(text, err);
      return;
    }
    this.deliver(message);
  }

  /**
   * One slice of work on the queue: small lines parsed as they come, a big one stepped for at most
   * PARSE_SLICE_MS; then yield (setImmediate) while lines remain.
   */
  private pump(): void {
    this.pumping = undefined;
    const deadline = performance.now() + PARSE_SLICE_MS;
    while (this.queue.length > 0) {
      const head = this.queue[0];
      if (head instanceof PendingLine) {
        // Its pieces are joined in slices first.
        if (!head.join(deadline)) break;
        this.queue[0] = head.bytes as Buffer;
        continue;
      }
      if (head.length < SLICED_PARSE_MIN_BYTES) {
        this.shift();
        this.parseNow(head);
      } else if (this.stepBig(head, deadline)) {
        this.shift();
      } else {
        break;
      }
      if (performance.now() >= deadline) break;
    }
    if (this.queue.length > 0) {
      this.pumping ??= setImmediate(() => this.pump());
      return;
    }
    const after = this.afterQueue;
    this.afterQueue = [];
    for (const fn of after) fn();
  }

  private shift(): void {
    const bytes = this.queue.shift() as Buffer;
    this.queuedBytes -= bytes.length;
    if (this.stdoutPaused && this.queuedBytes <= MAX_QUEUED_BYTES) {
      this.stdoutPaused = false;
      this.sink.resume();
    }
  }

  /** Parse the big line at the head of the queue until `deadline`; true once it is delivered (or refused). */
  private stepBig(bytes: Buffer, deadline: number): boolean {
    const body = bytes[bytes.length - 1] === 0x0d ? bytes.subarray(0, bytes.length - 1) : bytes;
    // The message object is one level above its result (which the host bounds to MAX_NESTING_DEPTH levels).
    this.parser ??= new SlicedJsonParser(body, { maxDepth: MAX_NESTING_DEPTH + 1 });
    let value: unknown;
    try {
      if (!this.parser.step(deadline)) return false;
      value = this.parser.value;
    } catch (err) {
      this.parser = undefined;
      const start = utf8Start(body);
      if (err instanceof JsonDepthError) {
        // Nested too deep for anything downstream to walk: the request it answers fails now, naming the server.
        const head = readHead(start);
        if (head.id !== undefined && !head.method
          && this.failRequest(head.id, l10n.t('server `{0}` answered request {1} with a message nested deeper than {2} levels; the host does not take it',
            this.server, JSON.stringify(head.id), formatNumber(MAX_NESTING_DEPTH, 'grouped')))) {
          this.report({ kind: 'tooDeep', failed: JSON.stringify(head.id), preview: preview(start, body.length) });
          return true;
        }
        this.report({ kind: 'tooDeep', preview: preview(start, body.length) });
        return true;
      }
      this.report({ kind: 'notJson', detail: cut(messageOf(err), 120), preview: preview(start, body.length) });
      return true;
    }
    this.parser = undefined;
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch (err) {
      this.rejectValue(value, err, preview(utf8Start(body), body.length));
      return true;
    }
    this.deliver(message);
    return true;
  }

  /** Hand a parsed message on, unless it answers a request nobody waits for. */
  private deliver(message: JSONRPCMessage): void {
    if ('id' in message && message.id !== undefined && !('method' in message) && !this.outstanding.delete(idKey(message.id))) {
      // Said here, short: the SDK would put the whole message (up to the cap) into its error text.
      this.report({ kind: 'unknownId', id: cut(JSON.stringify(message.id), 100) });
      return;
    }
    this.sink.message(message);
  }

  /** A line the schema refused: say why (bounded), and fail the request it answers, if any. */
  private rejectLine(text: string, err: unknown): void {
    let value: unknown;
    try {
      value = parseJson(text);
    } catch (e) {
      this.report({ kind: 'notJson', detail: cut(messageOf(e), 120), preview: preview(text) });
      return;
    }
    this.rejectValue(value, err, preview(text));
  }

  /** Parsed JSON the schema refused (`shown`: the line's preview). */
  private rejectValue(value: unknown, err: unknown, shown: LinePreview): void {
    const { problem, answers } = describeInvalid(value, firstIssue(err));
    if (answers === undefined) {
      this.report({ kind: 'invalid', problem, preview: shown });
      return;
    }
    const id = JSON.stringify(answers);
    const failed = this.failRequest(answers, l10n.t('server `{0}` answered request {1} with {2}', this.server, id, shapeReason(problem)));
    this.report({ kind: 'invalid', problem, preview: shown, request: { id, failed } });
  }

  private onOversizeStart(head: Buffer): void {
    const fields = readHead(head.toString('utf8'));
    this.failedForOversize = undefined;
    if (fields.id === undefined || fields.method) return;
    if (this.failRequest(fields.id, this.oversizeMessage({ kind: 'answerTooLarge', request: JSON.stringify(fields.id) }))) {
      this.failedForOversize = fields.id;
    }
  }

  private onOversizeEnd(total: number, head: Buffer, tail: Buffer): void {
    let id = this.failedForOversize;
    this.failedForOversize = undefined;
    if (id === undefined && !readHead(head.toString('utf8')).method) {
      const atEnd = idAtEnd(tail.toString('utf8'));
      if (atEnd !== undefined && this.failRequest(atEnd, this.oversizeMessage({ kind: 'answerTooLarge', request: JSON.stringify(atEnd) }))) id = atEnd;
    }
    this.report({ kind: 'limit', max: this.maxMessageBytes, situation: { kind: 'stdoutDropped', size: formatBytes(total), request: id !== undefined ? JSON.stringify(id) : undefined } });
  }

  private oversizeMessage(what: LimitSituation): string {
    return limitMessage(this.server, this.maxMessageBytes, what);
  }

  /**
   * Deliver an error response the host made up, so the pending request fails now with `message`. Only
   * for a request of ours still waiting; false (nothing delivered) otherwise.
   */
  private failRequest(id: JsonRpcId, message: string): boolean {
    if (!this.outstanding.delete(idKey(id))) return false;
    this.sink.message({ jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message, data: HOST_REJECTED } } as JSONRPCMessage);
    return true;
  }

  private report(what: DroppedLine): void {
    this.invalidLines++;
    if (this.invalidLines > MAX_REPORTED_INVALID_LINES + 1) return;
    const error = new StdioMessageError(this.server, this.invalidLines > MAX_REPORTED_INVALID_LINES ? { kind: 'tooMany', max: MAX_REPORTED_INVALID_LINES } : what);
    this.sink.dropped(error);
  }
}

/** A big line as the framer's pieces, joined into one buffer a slice at a time (one 50 MB copy is a long block). */
class PendingLine {
  bytes: Buffer | undefined;
  private next = 0;
  private at = 0;
  private readonly target: Buffer;

  constructor(private parts: Buffer[], readonly length: number) {
    this.target = Buffer.allocUnsafeSlow(length);
  }

  /** Copy pieces until `deadline`; true once the line is whole (in `bytes`). */
  join(deadline: number): boolean {
    while (this.next < this.parts.length) {
      this.at += this.parts[this.next].copy(this.target, this.at);
      this.next++;
      if (this.next % 16 === 0 && performance.now() >= deadline) return false;
    }
    this.bytes = this.target;
    this.parts = [];
    return true;
  }
}

function cut(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/**
 * The start of a line, JSON-quoted (control characters escaped), for a log line. `totalBytes` (a big line, of which
 * only the start was decoded): its size is said in bytes.
 */
function preview(text: string, totalBytes?: number): LinePreview {
  if (totalBytes !== undefined) return { start: JSON.stringify(text.slice(0, 200)), bytes: totalBytes };
  return text.length > 200 ? { start: JSON.stringify(text.slice(0, 200)), chars: text.length } : { start: JSON.stringify(text) };
}

/** The first characters of a big line (a few hundred bytes decoded, never the whole line). */
function utf8Start(bytes: Buffer): string {
  return bytes.toString('utf8', 0, utf8Boundary(bytes, 1024));
}

/** The schema's first complaint, short. */
function firstIssue(err: unknown): string | undefined {
  const issues = (err as { issues?: { path?: unknown[]; message?: string }[] } | undefined)?.issues;
  const first = Array.isArray(issues) ? issues[0] : undefined;
  if (!first?.message) return undefined;
  const where = (first.path ?? []).join('.');
  return cut(`${where ? `${where}: ` : ''}${first.message}`, 120);
}

