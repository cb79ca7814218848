/**
 * The one atomic write of a file the host owns (tokens, DPoP keys, the installation key, the era cache, History,
 * cached icons): the data goes to a temporary file beside the target, which is then renamed over it, so a reader (or
 * the next run after a crash) sees the old file or the new one, never half of one. A write that fails removes its
 * temporary file and throws.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface AtomicWriteOptions {
  /** The file's mode when it is created (e.g. 0o600 for secrets). */
  readonly mode?: number;
  /** Create the target's folder first (recursively) with this mode (e.g. 0o700). */
  readonly dirMode?: number;
  /** The temporary file (default `<file>.<pid>.tmp`); one writer must not share another's. */
  readonly tmp?: string;
}

/** Writes `data` to `file` atomically, synchronously (for writes that run as the window closes or the process ends). */
export function writeFileAtomicSync(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  if (options.dirMode !== undefined) fs.mkdirSync(path.dirname(file), { recursive: true, mode: options.dirMode });
  const tmp = options.tmp ?? `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, data, options.mode === undefined ? undefined : { mode: options.mode });
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * Writes `data` to `file` atomically. `stillWanted`, asked once the temporary file is written, can give the write up
 * (a later write overtook it): the temporary file is removed, the target left alone, and the answer is false.
 */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions & { readonly stillWanted?: () => boolean } = {},
): Promise<boolean> {
  if (options.dirMode !== undefined) await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: options.dirMode });
  const tmp = options.tmp ?? `${file}.${process.pid}.tmp`;
  try {
    await fs.promises.writeFile(tmp, data, options.mode === undefined ? undefined : { mode: options.mode });
    if (options.stillWanted && !options.stillWanted()) {
      await fs.promises.rm(tmp, { force: true });
      return false;
    }
    await fs.promises.rename(tmp, file);
    return true;
  } catch (err) {
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
}
