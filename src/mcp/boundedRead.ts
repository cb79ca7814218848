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
 * The error carries what the path is and the cap (`BoundedReadFacts`), never any of its content; `readRefusal` says it
 * (issue 40: one whole, localisable sentence per situation), and callers put the server, the setting and the fix
 * around it (`BoundedReadError.why`, or `readRefusal(err.facts, 'it')` for a sentence of its own). This module and
 * the host-owned reads listed in eslint.config.mjs are the only places in src/ that call readFile/readFileSync/createReadStream (the lint rule refuses the rest).
 */
import * as fs from 'node:fs';
import * as l10n from '@vscode/l10n';
import { formatBytes } from './logging/humanText';

/** Why a bounded read failed: the path's kind, or the cap. */
export type BoundedReadFailure = 'missing' | 'directory' | 'not-file' | 'too-large' | 'denied' | 'unreadable';

/** What a path that is not a regular file (nor a directory) is. */
export type NotAFile = 'fifo' | 'characterDevice' | 'blockDevice' | 'socket' | 'other';

/**
 * What the file is, for the size message ("more than the 4 MiB an envFile may hold"): a kind, never an English noun,
 * so each is a whole sentence of its own (`readRefusal`). Absent: "this file".
 */
export type ReadFileKind = 'envFile' | 'configFile' | 'workspaceFile' | 'policyFile' | 'tokenFile' | 'program' | 'interpreter';

/** The facts of a refused read: no text, no content of the file. */
export type BoundedReadFacts =
  | { kind: 'missing' }
  | { kind: 'directory' }
  | { kind: 'not-file'; type: NotAFile }
  | { kind: 'too-large'; maxBytes: number; what?: ReadFileKind; /** The size, when the file reports one. */ size?: number }
  | { kind: 'denied' }
  | { kind: 'unreadable'; /** The errno code (ELOOP: a loop of symbolic links), else the system's message. */ cause: string };

export class BoundedReadError extends Error {
  readonly kind: BoundedReadFailure;
  constructor(
    readonly file: string,
    readonly facts: BoundedReadFacts,
    /** The errno code, when the system refused. */
    readonly code?: string,
  ) {
    super(`${file}: ${readRefusal(facts)}`);
    this.kind = facts.kind;
  }

  /** A clause for a sentence about the path: "which is a FIFO (named pipe), not a regular file". No content. */
  get why(): string {
    return readRefusal(this.facts);
  }
}

/**
 * What a refused read says about the path, in the configured language (English in the CLI): `which`, a clause after
 * the path ("…, which is a directory"); `it`, a clause of its own ("it is a directory"). One whole message per
 * situation and form (issue 40); nothing of the file's content.
 */
export function readRefusal(f: BoundedReadFacts, form: 'which' | 'it' = 'which'): string {
  const which = form === 'which';
  switch (f.kind) {
    case 'missing': return which ? l10n.t('which does not exist') : l10n.t('it does not exist');
    case 'directory': return which ? l10n.t('which is a directory') : l10n.t('it is a directory');
    case 'denied': return which ? l10n.t('which cannot be read (permission denied)') : l10n.t('it cannot be read (permission denied)');
    case 'unreadable':
      if (f.cause === 'ELOOP') return which ? l10n.t('which is a loop of symbolic links') : l10n.t('it is a loop of symbolic links');
      return which ? l10n.t('which cannot be read ({0})', f.cause) : l10n.t('it cannot be read ({0})', f.cause);
    case 'not-file':
      switch (f.type) {
        case 'fifo': return which ? l10n.t('which is a FIFO (named pipe), not a regular file') : l10n.t('it is a FIFO (named pipe), not a regular file');
        case 'characterDevice': return which ? l10n.t('which is a character device (such as /dev/zero), not a regular file') : l10n.t('it is a character device (such as /dev/zero), not a regular file');
        case 'blockDevice': return which ? l10n.t('which is a block device, not a regular file') : l10n.t('it is a block device, not a regular file');
        case 'socket': return which ? l10n.t('which is a socket, not a regular file') : l10n.t('it is a socket, not a regular file');
        case 'other': return which ? l10n.t('which is not a regular file') : l10n.t('it is not a regular file');
      }
      break;
    case 'too-large':
      return f.size === undefined ? tooLargeUnsized(f.what, formatBytes(f.maxBytes), which) : tooLargeSized(f.what, formatBytes(f.size), formatBytes(f.maxBytes), which);
  }
  return f satisfies never;
}

/** "which is 5 MiB, more than the 4 MiB an envFile may hold": one message per kind of file and form. */
function tooLargeSized(what: ReadFileKind | undefined, size: string, cap: string, which: boolean): string {
  switch (what) {
    case 'envFile': return which ? l10n.t('which is {0}, more than the {1} an envFile may hold', size, cap) : l10n.t('it is {0}, more than the {1} an envFile may hold', size, cap);
    case 'configFile': return which ? l10n.t('which is {0}, more than the {1} a configuration file may hold', size, cap) : l10n.t('it is {0}, more than the {1} a configuration file may hold', size, cap);
    case 'workspaceFile': return which ? l10n.t('which is {0}, more than the {1} a workspace file may hold', size, cap) : l10n.t('it is {0}, more than the {1} a workspace file may hold', size, cap);
    case 'policyFile': return which ? l10n.t('which is {0}, more than the {1} a policy file may hold', size, cap) : l10n.t('it is {0}, more than the {1} a policy file may hold', size, cap);
    case 'tokenFile': return which ? l10n.t('which is {0}, more than the {1} a token file may hold', size, cap) : l10n.t('it is {0}, more than the {1} a token file may hold', size, cap);
    case 'program': return which ? l10n.t('which is {0}, more than the {1} a program may hold', size, cap) : l10n.t('it is {0}, more than the {1} a program may hold', size, cap);
    case 'interpreter': return which ? l10n.t('which is {0}, more than the {1} code mode\'s interpreter may hold', size, cap) : l10n.t('it is {0}, more than the {1} code mode\'s interpreter may hold', size, cap);
    case undefined: return which ? l10n.t('which is {0}, more than the {1} this file may hold', size, cap) : l10n.t('it is {0}, more than the {1} this file may hold', size, cap);
  }
}

/** "which is more than the 4 MiB an envFile may hold" (a file that reports no size, or grew while read). */
function tooLargeUnsized(what: ReadFileKind | undefined, cap: string, which: boolean): string {
  switch (what) {
    case 'envFile': return which ? l10n.t('which is more than the {0} an envFile may hold', cap) : l10n.t('it is more than the {0} an envFile may hold', cap);
    case 'configFile': return which ? l10n.t('which is more than the {0} a configuration file may hold', cap) : l10n.t('it is more than the {0} a configuration file may hold', cap);
    case 'workspaceFile': return which ? l10n.t('which is more than the {0} a workspace file may hold', cap) : l10n.t('it is more than the {0} a workspace file may hold', cap);
    case 'policyFile': return which ? l10n.t('which is more than the {0} a policy file may hold', cap) : l10n.t('it is more than the {0} a policy file may hold', cap);
    case 'tokenFile': return which ? l10n.t('which is more than the {0} a token file may hold', cap) : l10n.t('it is more than the {0} a token file may hold', cap);
    case 'program': return which ? l10n.t('which is more than the {0} a program may hold', cap) : l10n.t('it is more than the {0} a program may hold', cap);
    case 'interpreter': return which ? l10n.t('which is more than the {0} code mode\'s interpreter may hold', cap) : l10n.t('it is more than the {0} code mode\'s interpreter may hold', cap);
    case undefined: return which ? l10n.t('which is more than the {0} this file may hold', cap) : l10n.t('it is more than the {0} this file may hold', cap);
  }
}

export interface BoundedReadOptions {
  /** The most bytes the file may hold. */
  maxBytes: number;
  /** What the file is, for the size message (absent: "this file"). */
  what?: ReadFileKind;
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

function notAFile(st: fs.Stats): NotAFile {
  if (st.isFIFO()) return 'fifo';
  if (st.isCharacterDevice()) return 'characterDevice';
  if (st.isBlockDevice()) return 'blockDevice';
  if (st.isSocket()) return 'socket';
  return 'other';
}

function refuseStat(file: string, st: fs.Stats, o: BoundedReadOptions): void {
  if (st.isDirectory()) throw new BoundedReadError(file, { kind: 'directory' });
  if (!st.isFile()) throw new BoundedReadError(file, { kind: 'not-file', type: notAFile(st) });
  if (st.size > o.maxBytes) throw tooLarge(file, o, st.size);
}

function tooLarge(file: string, o: BoundedReadOptions, size?: number): BoundedReadError {
  return new BoundedReadError(file, { kind: 'too-large', maxBytes: o.maxBytes, ...(o.what && { what: o.what }), ...(size !== undefined && { size }) });
}

function fromErrno(file: string, e: unknown): BoundedReadError {
  if (e instanceof BoundedReadError) return e;
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new BoundedReadError(file, { kind: 'missing' }, code);
  if (code === 'EISDIR') return new BoundedReadError(file, { kind: 'directory' }, code);
  if (code === 'EACCES' || code === 'EPERM') return new BoundedReadError(file, { kind: 'denied' }, code);
  return new BoundedReadError(file, { kind: 'unreadable', cause: code ?? (e instanceof Error ? e.message : String(e)) }, code);
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
