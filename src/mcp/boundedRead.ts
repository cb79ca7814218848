/**
 * The one reader of a file the host does not own (an envFile, a configuration to import, a key or token file, a
 * workspace's settings): never blocks and never reads without end (docs/SECURITY.md, "Threat model": every read is bounded).
 *
 * - A path that is not a regular file (a FIFO, a socket, a character device such as /dev/zero, a directory) is
 *   refused before it is opened; the file is then opened with O_NONBLOCK and checked again (fstat), so one swapped
 *   in between is refused too, and the open of a FIFO cannot wait for a writer.
 * - At most `maxBytes` are read: a file whose size is over the cap is refused before reading, and one that grows
 *   while it is read (or reports no size, like /proc files) stops at `maxBytes + 1` bytes.
 *
 * The error says what the path is and the cap, never any of its content; callers put the server, the setting and
 * the fix around it (`BoundedReadError.why`). This module and the host-owned reads listed in eslint.config.mjs are
 * the only places in src/ that call readFile/readFileSync/createReadStream (the lint rule refuses the rest).
 */
import * as fs from 'node:fs';
import { formatBytes } from './logging/humanText';

/** Why a bounded read failed: the path's kind, or the cap. */
export type BoundedReadFailure = 'missing' | 'directory' | 'not-file' | 'too-large' | 'denied' | 'unreadable';

export class BoundedReadError extends Error {
  constructor(
    readonly file: string,
    readonly kind: BoundedReadFailure,
    /** A clause for a sentence about the path: "which is a FIFO (named pipe), not a regular file". No content. */
    readonly why: string,
    /** The errno code, when the system refused. */
    readonly code?: string,
  ) {
    super(`${file}: ${why}`);
  }
}

export interface BoundedReadOptions {
  /** The most bytes the file may hold. */
  maxBytes: number;
  /** What the file is, for the size message ("an envFile", "a configuration file"). */
  what?: string;
}

/** The caps of the files the host reads, one place (docs/SECURITY.md, "Threat model"). */
export const READ_CAPS = Object.freeze({
  /** An envFile (a dotenv file of a stdio server); values over 128 KiB are refused at launch anyway. */
  envFile: 4 * 1024 * 1024,
  /** A configuration file read by the CLI or imported (settings.json, mcp.json, Claude/Cursor/Windsurf files). */
  configFile: 16 * 1024 * 1024,
  /** A key or token file (workload identity tokens, keys): a few KiB in practice. */
  keyFile: 64 * 1024,
  /** A code-mode program (`mcp-host run <file.js>`, issue 42). */
  program: 1024 * 1024,
  /** Code mode's interpreter, QuickJS as WebAssembly (about 500 KiB). */
  interpreter: 8 * 1024 * 1024,
});

const CHUNK = 64 * 1024;

function kindOf(st: fs.Stats): string | undefined {
  if (st.isFile()) return undefined;
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe), not a regular file';
  if (st.isCharacterDevice()) return 'a character device (such as /dev/zero), not a regular file';
  if (st.isBlockDevice()) return 'a block device, not a regular file';
  if (st.isSocket()) return 'a socket, not a regular file';
  return 'not a regular file';
}

function refuseStat(file: string, st: fs.Stats, o: BoundedReadOptions): void {
  const kind = kindOf(st);
  if (kind) throw new BoundedReadError(file, st.isDirectory() ? 'directory' : 'not-file', `which is ${kind}`);
  if (st.size > o.maxBytes) throw tooLarge(file, o, formatBytes(st.size));
}

function tooLarge(file: string, o: BoundedReadOptions, size?: string): BoundedReadError {
  return new BoundedReadError(file, 'too-large', `which is ${size ? `${size}, ` : ''}more than the ${formatBytes(o.maxBytes)} ${o.what ?? 'this file'} may hold`);
}

function fromErrno(file: string, e: unknown): BoundedReadError {
  if (e instanceof BoundedReadError) return e;
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new BoundedReadError(file, 'missing', 'which does not exist', code);
  if (code === 'EISDIR') return new BoundedReadError(file, 'directory', 'which is a directory', code);
  if (code === 'EACCES' || code === 'EPERM') return new BoundedReadError(file, 'denied', 'which cannot be read (permission denied)', code);
  if (code === 'ELOOP') return new BoundedReadError(file, 'unreadable', 'which is a loop of symbolic links', code);
  return new BoundedReadError(file, 'unreadable', `which cannot be read (${code ?? (e instanceof Error ? e.message : String(e))})`, code);
}

// O_NONBLOCK: opening a FIFO swapped in after the stat returns at once instead of waiting for a writer.
// O_NOCTTY: a terminal swapped in never becomes the host's controlling terminal. (Both 0 where the platform has none.)
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOCTTY ?? 0);

/** Reads at most `o.maxBytes` of `file`, a regular file; rejects with a BoundedReadError. Never blocks on the path. */
export async function readBounded(file: string, o: BoundedReadOptions): Promise<Buffer> {
  let handle: fs.promises.FileHandle;
  try {
    refuseStat(file, await fs.promises.stat(file), o);
    handle = await fs.promises.open(file, OPEN_FLAGS);
  } catch (e) {
    throw fromErrno(file, e);
  }
  try {
    refuseStat(file, await handle.stat(), o);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, o.maxBytes + 1 - total));
      const { bytesRead } = await handle.read(buf, 0, buf.length, total);
      if (!bytesRead) break;
      chunks.push(buf.subarray(0, bytesRead));
      total += bytesRead;
      if (total > o.maxBytes) throw tooLarge(file, o);
    }
    return Buffer.concat(chunks, total);
  } catch (e) {
    throw fromErrno(file, e);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** The synchronous `readBounded`, for the few readers that must finish in one turn (resolving a definition). */
export function readBoundedSync(file: string, o: BoundedReadOptions): Buffer {
  let fd: number;
  try {
    refuseStat(file, fs.statSync(file), o);
    fd = fs.openSync(file, OPEN_FLAGS);
  } catch (e) {
    throw fromErrno(file, e);
  }
  try {
    refuseStat(file, fs.fstatSync(fd), o);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, o.maxBytes + 1 - total));
      const n = fs.readSync(fd, buf, 0, buf.length, total);
      if (!n) break;
      chunks.push(buf.subarray(0, n));
      total += n;
      if (total > o.maxBytes) throw tooLarge(file, o);
    }
    return Buffer.concat(chunks, total);
  } catch (e) {
    throw fromErrno(file, e);
  } finally {
    try { fs.closeSync(fd); } catch { /* already closed */ }
  }
}

/** `readBounded` as UTF-8 text. */
export async function readBoundedText(file: string, o: BoundedReadOptions): Promise<string> {
  return (await readBounded(file, o)).toString('utf8');
}

/** `readBoundedSync` as UTF-8 text. */
export function readBoundedTextSync(file: string, o: BoundedReadOptions): string {
  return readBoundedSync(file, o).toString('utf8');
}
