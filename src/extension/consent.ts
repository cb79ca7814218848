/**
 * Launch consent for workspace servers: the dialog (what runs, where values go, secrets masked) and the answers,
 * kept in the workspace state as definition keys (hashes, `src/mcp/config/definitionKey.ts`), never definitions.
 */
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { describeWall, redactorFor, sandboxPolicy, sandboxProtectedNames, type SandboxPolicy, type ServerDefinition } from '../mcp';
import { READ_CAPS, readBoundedText } from '../mcp/boundedRead';
import { parseDotenv } from '../mcp/config/envFile';
import { dialogText, quoted } from '../mcp/logging/display';
import { ask as askDialog } from './dialogs';

/** Definition keys the user allowed (workspace state). */
export const CONSENT_ALLOWED_KEY = 'mcpHost.launchConsent';
/** Definition keys the user denied ("Don't Allow", workspace state): asked again only on an explicit Start. A dismissed dialog is "not now": nothing is kept. */
export const CONSENT_DENIED_KEY = 'mcpHost.launchDenied';
/** Denials remembered per workspace (oldest forgotten first). */
const MAX_DENIED = 200;
const KEY_SHAPE = /^[0-9a-f]{64}$/;
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
 * secrets masked, and the answer is remembered against the definition key (a hash), so an edited
 * definition asks again. Several servers waiting at once are asked in one dialog. "Don't Allow" ("Allow None")
 * is remembered too, across reloads: only the user's own explicit start asks again (`ensureAll(…, { askDenied:
 * true })`); lazy starts, chat and model tool calls get `false` without a dialog. A dismissed dialog (Escape, the
 * close box, its Cancel) means "not now": this start does not happen, nothing is stored, and in this window only the
 * user's next explicit Start asks again (a lazy start or a model's request does not reopen it); after a reload, the
 * first start asks again.
 */
export class LaunchConsent {
  private readonly asking = new Map<string, Promise<boolean>>();
  /** Definition keys whose dialog was dismissed in this window ("not now"): no dialog until the user's own Start. */
  private readonly notNow = new Set<string>();
  /** The one-server dialog; tests replace it through the extension's test API. */
  prompt: ConsentPrompt = modalPrompt;
  /**
   * The several-servers dialog; tests replace it through the extension's test API. Unset while
   * `prompt` is replaced: each server is then reviewed through `prompt`.
   */
  batchPrompt: ConsentBatchPrompt | undefined;
  /** Called once for every "Don't Allow" (a dismissed dialog is "not now" and not reported): the controller logs it. */
  onDenied: ((def: ServerDefinition) => void) | undefined;

  /** `state` is the workspace state; `key` the definition key (a hash). */
  constructor(private readonly state: Pick<vscode.Memento, 'get' | 'update'>, private readonly key: (def: ServerDefinition) => string) {
    // Only hashes are kept: anything else (an older format) is dropped.
    for (const k of [CONSENT_ALLOWED_KEY, CONSENT_DENIED_KEY]) {
      const v = state.get<unknown>(k);
      if (v !== undefined && (!Array.isArray(v) || v.some(x => !isKey(x)))) void state.update(k, Array.isArray(v) ? v.filter(isKey) : undefined);
    }
  }

  /** True when this exact definition was allowed before. */
  isAllowed(def: ServerDefinition): boolean {
    return this.list(CONSENT_ALLOWED_KEY).includes(this.key(def));
  }

  /** True when the user said no to this exact definition (or dismissed its dialog), in this session or before a reload. */
  wasDenied(def: ServerDefinition): boolean {
    return this.list(CONSENT_DENIED_KEY).includes(this.key(def));
  }

  /** Asks once (concurrent callers share the dialog); resolves true when launching is allowed. */
  ensure(def: ServerDefinition, uses?: InputUse[], opts?: { askDenied?: boolean }): Promise<boolean> {
    return this.ensureAll([{ def, uses }], opts).then(([ok]) => ok);
  }

  /**
   * Asks about every request not allowed yet: one dialog for one server, one dialog for several
   * (allow all / review each / allow none). Requests already being asked share that dialog. A denied
   * definition is asked about again only with `askDenied` (the user's explicit start); otherwise it
   * resolves false without a dialog. Resolves, in order, whether each may launch.
   */
  ensureAll(requests: ConsentRequest[], opts: { askDenied?: boolean } = {}): Promise<boolean[]> {
    const fresh: (ConsentRequest & { fp: string })[] = [];
    const answers = requests.map(r => {
      if (this.isAllowed(r.def)) return Promise.resolve(true);
      const fp = this.key(r.def);
      const pending = this.asking.get(fp);
      if (pending) return pending;
      if (!opts.askDenied && (this.wasDenied(r.def) || this.notNow.has(fp))) return Promise.resolve(false);
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
    return Promise.all(answers.map((a, i) => a ?? this.asking.get(this.key(requests[i].def)) ?? Promise.resolve(this.isAllowed(requests[i].def))));
  }

  /** Forgets every answer (allowed and denied). */
  async reset(): Promise<void> {
    this.notNow.clear();
    await this.state.update(CONSENT_DENIED_KEY, undefined);
    await this.state.update(CONSENT_ALLOWED_KEY, []);
  }

  private list(key: string): string[] {
    const v = this.state.get<unknown>(key);
    return Array.isArray(v) ? v.filter(isKey) : [];
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
    return Promise.all(requests.map(r => this.record(r, answer === 'allowAll' ? 'allow' : answer === 'denyAll' ? 'deny' : undefined)));
  }

  private async askOne(r: ConsentRequest & { fp: string }): Promise<boolean> {
    return this.record(r, await this.prompt(r.def, await describeRequest(r)));
  }

  /** Keeps an answer: "allow" and "Don't Allow" are remembered; a dismissed dialog (undefined) is "not now", kept nowhere. */
  private async record({ fp, def }: ConsentRequest & { fp: string }, answer: ConsentAnswer): Promise<boolean> {
    if (answer === undefined) { this.notNow.add(fp); return false; }
    this.notNow.delete(fp);
    const denied = this.list(CONSENT_DENIED_KEY);
    if (answer !== 'allow') {
      this.onDenied?.(def);
      if (!denied.includes(fp)) await this.state.update(CONSENT_DENIED_KEY, [...denied, fp].slice(-MAX_DENIED));
      return false;
    }
    if (denied.includes(fp)) await this.state.update(CONSENT_DENIED_KEY, denied.filter(k => k !== fp));
    const list = this.list(CONSENT_ALLOWED_KEY);
    if (!list.includes(fp)) await this.state.update(CONSENT_ALLOWED_KEY, [...list, fp]);
    return true;
  }
}

function isKey(v: unknown): v is string {
  return typeof v === 'string' && KEY_SHAPE.test(v);
}

async function describeRequest(r: ConsentRequest): Promise<string> {
  const d = r.def;
  const text = d.type === 'stdio' ? describeLaunch(d, await envFileKeys(d), await launchWall(d)) : describeRemote(d);
  const uses = (r.uses ?? []).filter(u => u.inputs.length);
  if (!uses.length) return text;
  return `${text}\nInputs (values hidden): ${uses.map(u => `${u.inputs.map(i => `\${input:${i}}`).join(', ')} → ${u.where}`).join('; ')}`;
}

/** What the dialog calls the launch's own temporary folder (made only when it starts). */
const TEMP_FOLDER = path.join(os.tmpdir(), 'mcp-host-sandbox-(its own)');

/**
 * The wall a sandboxed workspace server would get: the same `sandboxPolicy` its launch computes, for the
 * workspace folders (its roots) and the user's home folder; undefined when it is not sandboxed or the runtime
 * cannot be loaded (the dialog says so, and the launch then fails closed).
 */
async function launchWall(def: ServerDefinition & { type: 'stdio' }): Promise<SandboxPolicy | undefined> {
  if (!def.sandboxEnabled) return undefined;
  try {
    const roots = (vscode.workspace.workspaceFolders ?? []).filter(f => f.uri.scheme === 'file').map(f => f.uri.fsPath);
    return sandboxPolicy(def, roots, {}, TEMP_FOLDER, await sandboxProtectedNames());
  } catch {
    return undefined;
  }
}

/**
 * The exact command line (with `${input:}` values hidden), working directory, environment variable names (never
 * values) and, sandboxed, the wall computed by {@link sandboxPolicy} (`wall`).
 */
export function describeLaunch(def: ServerDefinition & { type: 'stdio' }, fileKeys?: string[], wall?: SandboxPolicy): string {
  const envKeys = Object.keys(def.env ?? {});
  const commandLine = [def.command, ...def.args].map(quote).join(' ');
  return [
    `Command: ${redactorFor(def).text(commandLine, MASK)}`,
    `Working directory: ${def.cwd ?? `(inherited: ${process.cwd()})`}`,
    ...(!def.sandboxEnabled ? ['Sandbox: off: it runs with all your permissions']
      : wall ? describeWall(wall, os.homedir())
      : ['Sandbox: on, but its wall could not be computed here: it will not start unless the sandbox can run']),
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
  const wi = def.workloadIdentity;
  return [
    `Sends requests to: ${origin}`,
    `URL: ${redactorFor(def).text(shown, MASK)}`,
    `Headers sent there: ${headers.length ? headers.map(h => `${h}: ${MASK}`).join(', ') : '(none)'}`,
    // A workload token goes to the authorization server the server names: say whose token, from where.
    ...(wi ? [`Signs in as workload ${JSON.stringify(wi.clientId)} with the identity token from ${wi.tokenFile !== undefined ? `the file ${wi.tokenFile}` : `the environment variable ${wi.tokenEnv}`}`] : []),
  ].join('\n');
}

/** Variable names in the server's envFile, or undefined when there is none or it cannot be read. */
async function envFileKeys(def: ServerDefinition): Promise<string[] | undefined> {
  if (def.type !== 'stdio' || !def.envFile) return undefined;
  try {
    return Object.keys(parseDotenv(await readBoundedText(def.envFile, { maxBytes: READ_CAPS.envFile, what: 'an envFile' })).vars);
  } catch {
    return undefined;
  }
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg);
}

/**
 * What the answers mean, at the end of the dialog's detail: the dialog's own Cancel (Escape, the close box) sits beside
 * "Don't Allow" / "Allow None", and the two differ (LaunchConsent: a denial is remembered, a cancel is "not now").
 */
export const ANSWERS_ONE = '"Don\'t Allow" is remembered: it stays stopped, and only your own Start (MCP Host: Start Server) asks again. '
  + '"Cancel" is "not now": nothing is remembered, and you are asked again on your next start.';
export const ANSWERS_MANY = '"Allow None" is remembered for each server: they stay stopped, and only your own Start (MCP Host: Start Server) asks again. '
  + '"Cancel" is "not now": nothing is remembered, and you are asked again on your next start.';

async function modalPrompt(def: ServerDefinition, detail: string): Promise<ConsentAnswer> {
  const allow = 'Allow';
  const deny = "Don't Allow";
  const question = def.type === 'stdio'
    ? `The workspace settings want to launch the MCP server ${quoted(def.name)}. Do you trust this command?`
    : `The workspace settings want to connect to the MCP server ${quoted(def.name)} and send it the values below. Do you trust this server?`;
  // "Don't Allow" and the dialog's own Cancel differ: a denial is remembered, a cancel asks again next time.
  const pick = await askDialog({ severity: 'warning', message: question, detail: `${dialogText(detail)}\n\n${ANSWERS_ONE}`, buttons: [{ title: allow }, { title: deny }] });
  return pick === allow ? 'allow' : pick === deny ? 'deny' : undefined;
}

async function modalBatchPrompt(defs: ServerDefinition[], detail: string): Promise<ConsentBatchAnswer> {
  const all = 'Allow All';
  const review = 'Review Each…';
  const none = 'Allow None';
  const pick = await askDialog({
    severity: 'warning',
    message: `The workspace settings want to start ${defs.length} MCP servers: ${defs.map(d => quoted(d.name, 40)).join(', ')}. Do you trust them?`,
    detail: `${dialogText(detail)}\n\n${ANSWERS_MANY}`, buttons: [{ title: all }, { title: review }, { title: none }],
  });
  return pick === all ? 'allowAll' : pick === review ? 'review' : pick === none ? 'denyAll' : undefined;
}
