/**
 * Keeps each server's History across reloads: one JSON file per server and definition under the workspace's storage
 * folder (`storageUri/history/`), written shortly after a change and when the window closes, read when a server
 * (re)appears in the host. What is written is `ServerHandle.storedHistory()`: bounded like the view, large results
 * left out, every text through the server's redaction path; the file name is a hash, never a definition.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HostApi, ServerDefinition, ServerHandle } from '../mcp';
import { definitionKey } from '../mcp/config/definitionKey';
import { Redactor } from '../mcp/logging/redact';

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
export function historyKey(name: string, def: ServerDefinition): string {
  return createHash('sha256').update(`${name}\n${definitionKey(def)}`).digest('hex');
}

export class HistoryStore implements vscode.Disposable {
  /** The connections restored already (a new connection of the same name is restored again). */
  private readonly restored = new WeakSet<ServerHandle>();
  private readonly dirty = new Map<string, ServerHandle>();
  private timer?: ReturnType<typeof setTimeout>;
  private readonly subs: { dispose(): void }[];

  /** `dir` is the folder of the files (undefined: History is not kept, e.g. a window without a folder). */
  constructor(private readonly host: HostApi, private readonly dir: string | undefined, private readonly log: (m: string) => void) {
    this.subs = [
      host.onDidChangeServers(() => this.restoreNew()),
      host.onDidChangeHistory(e => {
        const h = host.get(e.server);
        if (!h || !this.dir) return;
        this.dirty.set(e.server, h);
        this.timer ??= setTimeout(() => { this.timer = undefined; this.flush(); }, WRITE_DELAY_MS);
      }),
    ];
    this.restoreNew();
  }

  /** The file a server's History is kept in. */
  fileOf(h: ServerHandle): string | undefined {
    return this.dir && path.join(this.dir, `${historyKey(h.name, h.definition)}.json`);
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

  /** Writes every changed History now (synchronously: it also runs as the window closes). */
  flush(): void {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    if (!this.dir || !this.dirty.size) return;
    const handles = [...this.dirty.values()];
    this.dirty.clear();
    // Nothing secret at rest: what is written goes through every server's redaction and, beyond the values that look
    // secret, every value of every resolved definition (env, headers, URL): a server's output may echo any of them
    // (its inherited environment included), and History on disk must hold none.
    const atRest = Redactor.merge([...this.host.servers.map(s => s.redactor), new Redactor(definitionValues(this.host.servers))]);
    try {
      fs.mkdirSync(this.dir, { recursive: true });
      for (const h of handles) {
        const stored = h.storedHistory(atRest);
        const file = this.fileOf(h)!;
        if (!stored.entries.length) continue;
        fs.writeFileSync(`${file}.tmp`, JSON.stringify(stored));
        fs.renameSync(`${file}.tmp`, file);
      }
      this.prune();
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
