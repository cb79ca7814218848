/**
 * Keeps each server's History across reloads: one JSON file per server and definition under the workspace's storage
 * folder (`storageUri/history/`), written shortly after a change and when the window closes, read when a server
 * (re)appears in the host. What is written is `ServerHandle.storedHistory()`: bounded like the view, large results
 * left out, every text through the server's redaction path; the file name is a hash, never a definition.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { type DefinitionKey, type HostApi, type ServerDefinition, type ServerHandle, Redactor, writeFileAtomic, writeFileAtomicSync } from '../../mcp';

/** Files kept (one per server and definition); the least recently written go first. */
export const MAX_HISTORY_FILES = 100;
/** A file larger than this is not read back (a stored history is at most ~3.5 MB: 50 results of 64 KiB). */
const MAX_FILE_BYTES = 8 * 1024 * 1024;
/** How long after a change the file is written (ms). */
const WRITE_DELAY_MS = 500;

/**
 * The key a server's History is kept under: its name and the definition key (a hash), so an edited definition (or
 * another workspace's server of the same name) starts its own History.
 */
export function historyKey(name: string, def: ServerDefinition, key: DefinitionKey): string {
  return createHash('sha256').update(`${name}\n${key(def)}`).digest('hex');
}

export class HistoryStore implements vscode.Disposable {
  /** The connections restored already (a new connection of the same name is restored again). */
  private readonly restored = new WeakSet<ServerHandle>();
  private readonly dirty = new Map<string, ServerHandle>();
  private timer?: ReturnType<typeof setTimeout>;
  private readonly subs: { dispose(): void }[];

  /** `dir` is the folder of the files (undefined: History is not kept, e.g. a window without a folder). */
  /** `key` is the definition key (definitionKeys.ts) the files are named by. */
  constructor(private readonly host: HostApi, private readonly dir: string | undefined, private readonly log: (m: string) => void, private readonly key: DefinitionKey) {
    this.subs = [
      host.onDidChangeServers(() => this.restoreNew()),
      host.onDidChangeHistory(e => {
        const h = host.get(e.server);
        if (!h || !this.dir) return;
        this.dirty.set(e.server, h);
        this.timer ??= setTimeout(() => { this.timer = undefined; this.writing = this.writing.then(() => this.flushAsync()); }, WRITE_DELAY_MS);
      }),
    ];
    this.restoreNew();
  }

  /** The file a server's History is kept in. */
  fileOf(h: ServerHandle): string | undefined {
    return this.dir && path.join(this.dir, `${historyKey(h.name, h.definition, this.key)}.json`);
  }

  private restoreNew(): void {
    for (const h of this.host.servers) {
      if (this.restored.has(h)) continue;
      this.restored.add(h);
      const file = this.fileOf(h);
      if (!file) continue;
      try {
        if (fs.statSync(file).size > MAX_FILE_BYTES) continue;
        h.restoreHistory(JSON.parse(fs.readFileSync(file, 'utf8')));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.log(`History of ${h.name} could not be read back: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  /** The timer's writes, one after another (the file system's calls off the extension host's thread). */
  private writing: Promise<void> = Promise.resolve();
  /** Each file's latest write: an earlier one still in flight does not replace the file after it. */
  private readonly generation = new Map<string, number>();
  /** What `flush` last wrote to each file, should an earlier timer write's rename land after it. */
  private readonly flushed = new Map<string, { gen: number; text: string }>();

  /** What every changed History becomes on disk: file and text (redacted; taken from the dirty set). */
  private collect(): { file: string; text: string; gen: number }[] {
    const handles = [...this.dirty.values()];
    this.dirty.clear();
    // Nothing secret at rest: what is written goes through every server's redaction and, beyond the values that look
    // secret, every value of every resolved definition (env, headers, URL): a server's output may echo any of them
    // (its inherited environment included), and History on disk must hold none.
    const atRest = Redactor.merge([...this.host.servers.map(s => s.redactor), new Redactor(definitionValues(this.host.servers))]);
    const out: { file: string; text: string; gen: number }[] = [];
    for (const h of handles) {
      const stored = h.storedHistory(atRest);
      if (!stored.entries.length) continue;
      const file = this.fileOf(h)!;
      const gen = (this.generation.get(file) ?? 0) + 1;
      this.generation.set(file, gen);
      out.push({ file, text: JSON.stringify(stored), gen });
    }
    return out;
  }

  /** Writes every changed History now (synchronously: it also runs as the window closes). */
  flush(): void {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    if (!this.dir || !this.dirty.size) return;
    try {
      const jobs = this.collect();
      fs.mkdirSync(this.dir, { recursive: true });
      for (const j of jobs) {
        writeFileAtomicSync(j.file, j.text, { tmp: `${j.file}.tmp` });
        this.flushed.set(j.file, j);
      }
      this.prune();
    } catch (err) {
      this.log(`History could not be kept: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * The timer's write: the same files, with the file system's calls asynchronous (under load one synchronous rename
   * held the extension host's thread ~60 ms while a view flooded it and a bystander's calls changed History twice a
   * second). A write that a later one (this path's or `flush`'s) overtook leaves the file alone.
   */
  private async flushAsync(): Promise<void> {
    if (!this.dir || !this.dirty.size) return;
    const dir = this.dir;
    try {
      const jobs = this.collect();
      await fs.promises.mkdir(dir, { recursive: true });
      for (const j of jobs) {
        const wanted = () => this.generation.get(j.file) === j.gen;
        if (!await writeFileAtomic(j.file, j.text, { tmp: `${j.file}.${j.gen}.tmp`, stillWanted: wanted })) continue;
        // A `flush` (the window closing) that wrote this file while the rename was under way came first on disk and
        // was just replaced by this older text: its text goes back, at once.
        const newer = this.flushed.get(j.file);
        if (newer && newer.gen > j.gen) {
          writeFileAtomicSync(j.file, newer.text, { tmp: `${j.file}.tmp` });
        } else if (newer) {
          this.flushed.delete(j.file);
        }
      }
      const files = (await fs.promises.readdir(dir)).filter(f => f.endsWith('.json'));
      if (files.length <= MAX_HISTORY_FILES) return;
      const byAge = await Promise.all(files.map(async f => ({ f, t: (await fs.promises.stat(path.join(dir, f)).catch(() => undefined))?.mtimeMs ?? 0 })));
      byAge.sort((a, b) => a.t - b.t);
      for (const { f } of byAge.slice(0, files.length - MAX_HISTORY_FILES)) await fs.promises.rm(path.join(dir, f), { force: true });
    } catch (err) {
      this.log(`History could not be kept: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** At most MAX_HISTORY_FILES files: the least recently written go. */
  private prune(): void {
    const files = fs.readdirSync(this.dir!).filter(f => f.endsWith('.json'));
    if (files.length <= MAX_HISTORY_FILES) return;
    const byAge = files.map(f => ({ f, t: fs.statSync(path.join(this.dir!, f)).mtimeMs })).sort((a, b) => a.t - b.t);
    for (const { f } of byAge.slice(0, files.length - MAX_HISTORY_FILES)) fs.rmSync(path.join(this.dir!, f), { force: true });
  }

  dispose(): void {
    this.subs.forEach(s => s.dispose());
    this.flush();
  }
}

/** Every value of the servers' resolved definitions that could be a secret at rest (8 characters or more). */
function definitionValues(servers: readonly ServerHandle[]): string[] {
  const out: string[] = [];
  for (const { definition: d } of servers) {
    const values = d.type === 'stdio' ? Object.values(d.env ?? {}) : [...Object.values(d.headers ?? {}), ...d.url.split(/[?&#=]/)];
    for (const v of values) if (typeof v === 'string' && v.length >= 8) out.push(v, ...v.split(/\s+/).filter(p => p.length >= 8));
  }
  return out;
}
