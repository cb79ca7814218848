/**
 * Launch consent for workspace servers (and servers the host added to user settings): the dialog (what runs, where values go, secrets masked) and the answers,
 * kept in the workspace state as definition keys (hashes, `src/mcp/config/definitionKey.ts`), never definitions.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as vscode from 'vscode';
import { describeWall, redactorFor, sandboxPolicy, sandboxProtectedNames, type Root, type SandboxPolicy, type ServerDefinition, headlineOrigin, shownOrigin, READ_CAPS, readBoundedText, parseDotenv, dialogText, quoted, shellQuote } from '../../mcp';
import type { Dialogs } from '../ui/dialogs';
import type { TestSeams } from '../testSupport';

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

/**
 * Shows the consent question for one server (`question`: the dialog's first line, naming the server and, for a remote
 * one, its origin); replaceable so tests can answer without a dialog.
 */
export type ConsentPrompt = (def: ServerDefinition, detail: string, question: string) => Thenable<ConsentAnswer>;

/** The answer to the question about several servers at once. */
export type ConsentBatchAnswer = 'allowAll' | 'review' | 'denyAll' | undefined;

/** Shows one question for several servers (allow all, review each, allow none); replaceable for tests. */
export type ConsentBatchPrompt = (defs: ServerDefinition[], detail: string) => Thenable<ConsentBatchAnswer>;

/** Where `${input:}` values go in one definition: `where` is e.g. `header Authorization`, `URL`, `args`. */
export interface InputUse { where: string; inputs: string[] }

/** A server waiting for consent, with what the dialog shows about its inputs and roots. */
export interface ConsentRequest {
  def: ServerDefinition;
  uses?: InputUse[];
  /** The roots the host sends it (`HostApi.rootsFor`): the dialog's roots line, and a sandboxed server's wall. */
  roots?: Root[];
  /** Where it is defined: workspace settings, or user settings (a server MCP Host added there: addedServers.ts). */
  scope?: 'user' | 'workspace';
  /** The portable file it was read from (`.mcp.json`, `~/.copilot/mcp-config.json`: mcpHost.configSources), if any. */
  source?: string;
}

/**
 * Launch consent for servers defined in workspace settings (stdio, http and sse alike), and for servers MCP Host
 * itself wrote into the user's settings (import, registry: addedServers.ts) until allowed: the dialog shows exactly
 * what runs or where requests go (the origin), the roots it is sent, with secrets masked, and the answer is remembered against the definition key (a hash), so an edited
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
  private readonly denials = new vscode.EventEmitter<ServerDefinition>();
  /** Fires once for every "Don't Allow" (a dismissed dialog is "not now" and not reported): the controller logs it. */
  readonly onDidDeny = this.denials.event;

  /**
   * `state` is the workspace state; `key` the definition key (a hash); `dialogs` the window's modal dialogs
   * (ui/dialogs.ts); `seams` the test-only replacements of the dialogs (testSupport.ts; given in test mode only).
   */
  constructor(
    private readonly state: Pick<vscode.Memento, 'get' | 'update'>,
    private readonly key: (def: ServerDefinition) => string,
    private readonly dialogs: Dialogs,
    private readonly seams?: Pick<TestSeams, 'consentPrompt' | 'consentBatchPrompt' | 'consentAsked'>,
  ) {
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
    // Test mode only (seams are given then): who was asked, and when (H641: never before the installation key was read).
    if (this.seams) (this.seams.consentAsked ??= []).push(...requests.map(r => ({ server: r.def.name, at: performance.now() })));
    if (requests.length === 1) return [await this.askOne(requests[0])];
    const details = await Promise.all(requests.map(r => describeRequest(r)));
    // A test that replaced the one-server dialog but not this one reviews each server through its replacement.
    const batch = this.seams?.consentBatchPrompt ?? (this.seams?.consentPrompt ? async () => 'review' as const : (defs: ServerDefinition[], detail: string) => modalBatchPrompt(this.dialogs, defs, detail));
    const detail = requests.map((r, i) => `${consentQuestion(r)}\n${details[i]}`).join('\n\n');
    const answer = await batch(requests.map(r => r.def), detail);
    if (answer === 'review') {
      const out: boolean[] = [];
      for (const r of requests) out.push(await this.askOne(r));
      return out;
    }
    return Promise.all(requests.map(r => this.record(r, answer === 'allowAll' ? 'allow' : answer === 'denyAll' ? 'deny' : undefined)));
  }

  private async askOne(r: ConsentRequest & { fp: string }): Promise<boolean> {
    const prompt = this.seams?.consentPrompt ?? ((_def: ServerDefinition, detail: string, question: string) => modalPrompt(this.dialogs, detail, question));
    return this.record(r, await prompt(r.def, await describeRequest(r), consentQuestion(r)));
  }

  /** Keeps an answer: "allow" and "Don't Allow" are remembered; a dismissed dialog (undefined) is "not now", kept nowhere. */
  private async record({ fp, def }: ConsentRequest & { fp: string }, answer: ConsentAnswer): Promise<boolean> {
    if (answer === undefined) { this.notNow.add(fp); return false; }
    this.notNow.delete(fp);
    const denied = this.list(CONSENT_DENIED_KEY);
    if (answer !== 'allow') {
      this.denials.fire(def);
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

/**
 * The dialog's first line for one server: who wants what (the workspace's settings, or a server MCP Host added to the
 * user's settings), the server's name and, for a remote server, the origin its requests go to, in ASCII (punycode)
 * when the host has international characters, so a look-alike domain reads `xn--…` where the eye decides.
 */
export function consentQuestion(r: ConsentRequest): string {
  const d = r.def;
  const name = quoted(d.name);
  // One whole sentence per case (a translation may order it differently), the same English as before.
  const who = r.source ? (r.scope === 'user' ? 'otherTool' : 'workspaceFile') : r.scope === 'user' ? 'added' : 'workspace';
  if (d.type === 'stdio') {
    switch (who) {
      case 'otherTool': return vscode.l10n.t('The MCP server {0} in {1} (written by another tool) has not been allowed yet. It wants to launch the MCP server {0}. Do you trust this command?', name, r.source ?? '');
      case 'workspaceFile': return vscode.l10n.t('The workspace\'s {1} wants to launch the MCP server {0}. Do you trust this command?', name, r.source ?? '');
      case 'added': return vscode.l10n.t('The MCP server {0} was added to your user settings by MCP Host (an import, the MCP Registry or Add Server) and has not been allowed yet. It wants to launch the MCP server {0}. Do you trust this command?', name);
      default: return vscode.l10n.t('The workspace settings want to launch the MCP server {0}. Do you trust this command?', name);
    }
  }
  const at = remoteOrigin(d.url).headline;
  switch (who) {
    case 'otherTool': return vscode.l10n.t('The MCP server {0} in {1} (written by another tool) has not been allowed yet. It wants to connect to the MCP server {0} at {2} and send it the values below. Do you trust this server?', name, r.source ?? '', at);
    case 'workspaceFile': return vscode.l10n.t('The workspace\'s {1} wants to connect to the MCP server {0} at {2} and send it the values below. Do you trust this server?', name, r.source ?? '', at);
    case 'added': return vscode.l10n.t('The MCP server {0} was added to your user settings by MCP Host (an import, the MCP Registry or Add Server) and has not been allowed yet. It wants to connect to the MCP server {0} at {1} and send it the values below. Do you trust this server?', name, at);
    default: return vscode.l10n.t('The workspace settings want to connect to the MCP server {0} at {1} and send it the values below. Do you trust this server?', name, at);
  }
}

/** A remote server's origin as the headline shows it (ASCII) and as the detail shows it (decoded, ASCII beside). */
function remoteOrigin(url: string): { headline: string; detail: string } {
  try {
    const o = shownOrigin(new URL(url));
    return { headline: headlineOrigin(o), detail: o.asciiOrigin ? vscode.l10n.t('{0} (the domain has international characters: {1})', o.asciiOrigin, o.origin) : o.origin };
  } catch {
    // An unparsable URL fails at connect time; the dialog shows it as written (masked by the caller).
    return { headline: vscode.l10n.t('(an unparsable URL)'), detail: vscode.l10n.t('(an unparsable URL)') };
  }
}

/** The roots line: exactly the roots the host sends the server (`HostApi.rootsFor`), folder paths and names. */
export function describeRoots(roots: readonly Root[]): string {
  if (!roots.length) return vscode.l10n.t('Roots it is sent: (none)');
  return vscode.l10n.t('Roots it is sent: {0}', roots.map(r => { const p = rootPath(r); const shown = p ?? r.uri; return r.name && r.name !== path.basename(shown) ? `${shown} (${r.name})` : shown; }).join(', '));
}

/** A root's folder path (the sandbox's write boundary is these), or undefined for a URI that is not a file path. */
function rootPath(r: Root): string | undefined {
  try { return fileURLToPath(r.uri); } catch { return undefined; }
}

async function describeRequest(r: ConsentRequest): Promise<string> {
  const d = r.def;
  const text = d.type === 'stdio' ? describeLaunch(d, await envFileKeys(d), await launchWall(d, r.roots)) : describeRemote(d);
  const lines = [text, ...(r.roots ? [describeRoots(r.roots)] : [])];
  const uses = (r.uses ?? []).filter(u => u.inputs.length);
  if (uses.length) lines.push(vscode.l10n.t('Inputs (values hidden): {0}', uses.map(u => `${u.inputs.map(i => `\${input:${i}}`).join(', ')} → ${u.where}`).join('; ')));
  return lines.join('\n');
}

/** What the dialog calls the launch's own temporary folder (made only when it starts). */
const TEMP_FOLDER = path.join(os.tmpdir(), 'mcp-host-sandbox-(its own)');

/**
 * The wall a sandboxed workspace server would get: the same `sandboxPolicy` its launch computes, for the roots the
 * host sends it (`sent`; without them, the workspace folders) and the user's home folder; undefined when it is not
 * sandboxed or the runtime cannot be loaded (the dialog says so, and the launch then fails closed).
 */
async function launchWall(def: ServerDefinition & { type: 'stdio' }, sent?: readonly Root[]): Promise<SandboxPolicy | undefined> {
  if (!def.sandboxEnabled) return undefined;
  try {
    const roots = sent
      ? sent.flatMap(r => rootPath(r) ?? [])
      : (vscode.workspace.workspaceFolders ?? []).filter(f => f.uri.scheme === 'file').map(f => f.uri.fsPath);
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
  // Each word as a POSIX shell reads it back: the one quoting the install and import dialogs show too (commandLine.ts).
  const commandLine = [def.command, ...def.args].map(shellQuote).join(' ');
  return [
    vscode.l10n.t('Command: {0}', redactorFor(def).text(commandLine, MASK)),
    def.cwd != null ? vscode.l10n.t('Working directory: {0}', def.cwd) : vscode.l10n.t('Working directory: (inherited: {0})', process.cwd()),
    ...(!def.sandboxEnabled ? [vscode.l10n.t('Sandbox: off: it runs with all your permissions')]
      : wall ? describeWall(wall, os.homedir())
      : [vscode.l10n.t('Sandbox: on, but its wall could not be computed here: it will not start unless the sandbox can run')]),
    vscode.l10n.t('Environment variables: {0}', envKeys.length ? envKeys.join(', ') : vscode.l10n.t('(none added)')),
    ...(def.envFile ? [fileKeys ? vscode.l10n.t('Environment file: {0} ({1})', def.envFile, fileKeys.join(', ') || vscode.l10n.t('empty')) : vscode.l10n.t('Environment file: {0} (not readable)', def.envFile)] : []),
  ].join('\n');
}

/** The origin a remote server's requests go to, its URL (secrets hidden) and the header names (values hidden). */
export function describeRemote(def: ServerDefinition & { type: 'http' | 'sse' }): string {
  let shown = def.url;
  try {
    const u = new URL(def.url);
    for (const k of [...u.searchParams.keys()]) u.searchParams.set(k, MASK);
    if (u.username || u.password) { u.username = u.username ? MASK : ''; u.password = u.password ? MASK : ''; }
    shown = u.toString().split(encodeURIComponent(MASK)).join(MASK);
  } catch {
    // An unparsable URL fails at connect time; show it masked as it is.
  }
  const headers = Object.keys(def.headers ?? {});
  const wi = def.workloadIdentity;
  return [
    vscode.l10n.t('Sends requests to: {0}', remoteOrigin(def.url).detail),
    vscode.l10n.t('URL: {0}', redactorFor(def).text(shown, MASK)),
    vscode.l10n.t('Headers sent there: {0}', headers.length ? headers.map(h => `${h}: ${MASK}`).join(', ') : vscode.l10n.t('(none)')),
    // A workload token goes to the authorization server the server names: say whose token, from where.
    ...(wi ? [wi.tokenFile !== undefined
      ? vscode.l10n.t('Signs in as workload {0} with the identity token from the file {1}', JSON.stringify(wi.clientId), wi.tokenFile)
      : vscode.l10n.t('Signs in as workload {0} with the identity token from the environment variable {1}', JSON.stringify(wi.clientId), wi.tokenEnv ?? '')] : []),
  ].join('\n');
}

/** Variable names in the server's envFile, or undefined when there is none or it cannot be read. */
async function envFileKeys(def: ServerDefinition): Promise<string[] | undefined> {
  if (def.type !== 'stdio' || !def.envFile) return undefined;
  try {
    return Object.keys(parseDotenv(await readBoundedText(def.envFile, { maxBytes: READ_CAPS.envFile, what: 'envFile' })).vars);
  } catch {
    return undefined;
  }
}

/**
 * What the answers mean, at the end of the dialog's detail: the dialog's own Cancel (Escape, the close box) sits beside
 * "Don't Allow" / "Allow None", and the two differ (LaunchConsent: a denial is remembered, a cancel is "not now").
 */
export const ANSWERS_ONE = vscode.l10n.t('"Don\'t Allow" is remembered: it stays stopped, and only your own Start (MCP Host: Start Server) asks again. "Cancel" is "not now": nothing is remembered, and you are asked again on your next start.');
export const ANSWERS_MANY = vscode.l10n.t('"Allow None" is remembered for each server: they stay stopped, and only your own Start (MCP Host: Start Server) asks again. "Cancel" is "not now": nothing is remembered, and you are asked again on your next start.');

async function modalPrompt(dialogs: Dialogs, detail: string, question: string): Promise<ConsentAnswer> {
  const allow = vscode.l10n.t('Allow');
  const deny = vscode.l10n.t('Don\'t Allow');
  // "Don't Allow" and the dialog's own Cancel differ: a denial is remembered, a cancel asks again next time.
  const pick = await dialogs.ask({ severity: 'warning', message: question, detail: `${dialogText(detail)}\n\n${ANSWERS_ONE}`, buttons: [{ title: allow }, { title: deny }] });
  return pick === allow ? 'allow' : pick === deny ? 'deny' : undefined;
}

async function modalBatchPrompt(dialogs: Dialogs, defs: ServerDefinition[], detail: string): Promise<ConsentBatchAnswer> {
  const all = vscode.l10n.t('Allow All');
  const review = vscode.l10n.t('Review Each…');
  const none = vscode.l10n.t('Allow None');
  const pick = await dialogs.ask({
    severity: 'warning',
    message: vscode.l10n.t('{0} MCP servers (from the workspace settings, or added to your settings by MCP Host) want to start: {1}. Do you trust them?', defs.length, defs.map(d => quoted(d.name, 40)).join(', ')),
    detail: `${dialogText(detail)}\n\n${ANSWERS_MANY}`, buttons: [{ title: all }, { title: review }, { title: none }],
  });
  return pick === all ? 'allowAll' : pick === review ? 'review' : pick === none ? 'denyAll' : undefined;
}
