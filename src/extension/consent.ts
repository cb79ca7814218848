import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import { redactorFor, type ServerDefinition } from '../mcp';
import { parseDotenv } from '../mcp/config/envFile';

const KEY = 'mcpHost.launchConsent';
const MASK = '••••';

/** What the user answered: allow, deny, or dismissed the dialog. */
export type ConsentAnswer = 'allow' | 'deny' | undefined;

/** Shows the consent question for one server; replaceable so tests can answer without a dialog. */
export type ConsentPrompt = (def: ServerDefinition, detail: string) => Thenable<ConsentAnswer>;

/** The answer to the question about several servers at once. */
export type ConsentBatchAnswer = 'allowAll' | 'review' | 'denyAll' | undefined;

/** Shows one question for several servers (allow all, review each, allow none); replaceable for tests. */
export type ConsentBatchPrompt = (defs: ServerDefinition[], detail: string) => Thenable<ConsentBatchAnswer>;

/** Where `${input:}` values go in one definition: `where` is e.g. `header Authorization`, `URL`, `args`. */
export interface InputUse { where: string; inputs: string[] }

/** A server waiting for consent, with what the dialog shows about its inputs. */
export interface ConsentRequest { def: ServerDefinition; uses?: InputUse[] }

/**
 * Launch consent for servers defined in workspace settings (stdio servers, and http/sse servers that
 * send `${input:}` values or headers): the dialog shows exactly what runs or where values go, with
 * secrets masked, and the answer is remembered against a fingerprint of the definition, so an edited
 * definition asks again. Several servers waiting at once are asked in one dialog.
 */
export class LaunchConsent {
  private readonly denied = new Set<string>();
  private readonly asking = new Map<string, Promise<boolean>>();
  /** The one-server dialog; tests replace it through the extension's test API. */
  prompt: ConsentPrompt = modalPrompt;
  /**
   * The several-servers dialog; tests replace it through the extension's test API. Unset while
   * `prompt` is replaced: each server is then reviewed through `prompt`.
   */
  batchPrompt: ConsentBatchPrompt | undefined;

  constructor(private readonly state: vscode.Memento, private readonly fingerprint: (def: ServerDefinition) => string) {}

  /** True when this exact definition was allowed before. */
  isAllowed(def: ServerDefinition): boolean {
    return this.state.get<string[]>(KEY, []).includes(this.fingerprint(def));
  }

  /** True when the user said no in this session (asking again needs an explicit start). */
  wasDenied(def: ServerDefinition): boolean {
    return this.denied.has(this.fingerprint(def));
  }

  /** Asks once (concurrent callers share the dialog); resolves true when launching is allowed. */
  ensure(def: ServerDefinition, uses?: InputUse[]): Promise<boolean> {
    return this.ensureAll([{ def, uses }]).then(([ok]) => ok);
  }

  /**
   * Asks about every request not allowed yet: one dialog for one server, one dialog for several
   * (allow all / review each / allow none). Requests already being asked share that dialog.
   * Resolves, in order, whether each may launch.
   */
  ensureAll(requests: ConsentRequest[]): Promise<boolean[]> {
    const fresh: (ConsentRequest & { fp: string })[] = [];
    const answers = requests.map(r => {
      if (this.isAllowed(r.def)) return Promise.resolve(true);
      const fp = this.fingerprint(r.def);
      const pending = this.asking.get(fp);
      if (pending) return pending;
      if (fresh.some(f => f.fp === fp)) return undefined;
      fresh.push({ ...r, fp });
      return undefined;
    });
    if (fresh.length) {
      const batch = this.askAll(fresh);
      fresh.forEach((f, i) => {
        const p = batch.then(all => all[i]).finally(() => this.asking.delete(f.fp));
        this.asking.set(f.fp, p);
      });
    }
    return Promise.all(answers.map((a, i) => a ?? this.asking.get(this.fingerprint(requests[i].def)) ?? Promise.resolve(this.isAllowed(requests[i].def))));
  }

  /** Forgets every answer. */
  async reset(): Promise<void> {
    this.denied.clear();
    await this.state.update(KEY, []);
  }

  private async askAll(requests: (ConsentRequest & { fp: string })[]): Promise<boolean[]> {
    if (requests.length === 1) return [await this.askOne(requests[0])];
    const details = await Promise.all(requests.map(r => describeRequest(r)));
    const batch = this.batchPrompt ?? (this.prompt === modalPrompt ? modalBatchPrompt : async () => 'review' as const);
    const detail = requests.map((r, i) => `"${r.def.name}"\n${details[i]}`).join('\n\n');
    const answer = await batch(requests.map(r => r.def), detail);
    if (answer === 'review') {
      const out: boolean[] = [];
      for (const r of requests) out.push(await this.askOne(r));
      return out;
    }
    return Promise.all(requests.map(r => this.record(r.fp, answer === 'allowAll')));
  }

  private async askOne(r: ConsentRequest & { fp: string }): Promise<boolean> {
    const answer = await this.prompt(r.def, await describeRequest(r));
    return this.record(r.fp, answer === 'allow');
  }

  private async record(fp: string, allowed: boolean): Promise<boolean> {
    if (!allowed) {
      this.denied.add(fp);
      return false;
    }
    this.denied.delete(fp);
    const list = this.state.get<string[]>(KEY, []);
    if (!list.includes(fp)) await this.state.update(KEY, [...list, fp]);
    return true;
  }
}

async function describeRequest(r: ConsentRequest): Promise<string> {
  const d = r.def;
  const text = d.type === 'stdio' ? describeLaunch(d, await envFileKeys(d)) : describeRemote(d);
  const uses = (r.uses ?? []).filter(u => u.inputs.length);
  if (!uses.length) return text;
  return `${text}\nInputs (values hidden): ${uses.map(u => `${u.inputs.map(i => `\${input:${i}}`).join(', ')} → ${u.where}`).join('; ')}`;
}

/** The exact command line (with `${input:}` values hidden), working directory and environment variable names (never values). */
export function describeLaunch(def: ServerDefinition & { type: 'stdio' }, fileKeys?: string[]): string {
  const envKeys = Object.keys(def.env ?? {});
  const commandLine = [def.command, ...def.args].map(quote).join(' ');
  return [
    `Command: ${redactorFor(def).text(commandLine, MASK)}`,
    `Working directory: ${def.cwd ?? `(inherited: ${process.cwd()})`}`,
    def.sandboxEnabled
      ? `Sandbox: on: writes only in its roots and temporary folder, cannot read your secrets, network: ${def.sandbox?.network?.allowedDomains?.join(', ') || 'none'}`
      : 'Sandbox: off: it runs with all your permissions',
    `Environment variables: ${envKeys.length ? envKeys.join(', ') : '(none added)'}`,
    ...(def.envFile ? [`Environment file: ${def.envFile}${fileKeys ? ` (${fileKeys.join(', ') || 'empty'})` : ' (not readable)'}`] : []),
  ].join('\n');
}

/** The origin a remote server's requests go to, its URL (secrets hidden) and the header names (values hidden). */
export function describeRemote(def: ServerDefinition & { type: 'http' | 'sse' }): string {
  let origin = def.url;
  let shown = def.url;
  try {
    const u = new URL(def.url);
    origin = u.origin;
    for (const k of [...u.searchParams.keys()]) u.searchParams.set(k, MASK);
    if (u.username || u.password) { u.username = u.username ? MASK : ''; u.password = u.password ? MASK : ''; }
    shown = u.toString().split(encodeURIComponent(MASK)).join(MASK);
  } catch {
    // An unparsable URL fails at connect time; show it masked as it is.
  }
  const headers = Object.keys(def.headers ?? {});
  return [
    `Sends requests to: ${origin}`,
    `URL: ${redactorFor(def).text(shown, MASK)}`,
    `Headers sent there: ${headers.length ? headers.map(h => `${h}: ${MASK}`).join(', ') : '(none)'}`,
  ].join('\n');
}

/** Variable names in the server's envFile, or undefined when there is none or it cannot be read. */
async function envFileKeys(def: ServerDefinition): Promise<string[] | undefined> {
  if (def.type !== 'stdio' || !def.envFile) return undefined;
  try {
    return Object.keys(parseDotenv(await fs.readFile(def.envFile, 'utf8')).vars);
  } catch {
    return undefined;
  }
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg);
}

async function modalPrompt(def: ServerDefinition, detail: string): Promise<ConsentAnswer> {
  const allow = 'Allow';
  const deny = "Don't Allow";
  const question = def.type === 'stdio'
    ? `The workspace settings want to launch the MCP server "${def.name}". Do you trust this command?`
    : `The workspace settings want to connect to the MCP server "${def.name}" and send it the values below. Do you trust this server?`;
  const pick = await vscode.window.showWarningMessage(question, { modal: true, detail }, allow, deny);
  return pick === allow ? 'allow' : pick === deny ? 'deny' : undefined;
}

async function modalBatchPrompt(defs: ServerDefinition[], detail: string): Promise<ConsentBatchAnswer> {
  const all = 'Allow All';
  const review = 'Review Each…';
  const none = 'Allow None';
  const pick = await vscode.window.showWarningMessage(
    `The workspace settings want to start ${defs.length} MCP servers: ${defs.map(d => `"${d.name}"`).join(', ')}. Do you trust them?`,
    { modal: true, detail },
    all, review, none,
  );
  return pick === all ? 'allowAll' : pick === review ? 'review' : pick === none ? 'denyAll' : undefined;
}
