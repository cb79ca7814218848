import * as os from 'node:os';
import * as path from 'node:path';
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import type { Dialogs } from '../ui/dialogs';
import { afterMcpJsonImport } from '../trust/coexistence';
import { definitionFromCommandLine, importConfig, BoundedReadError, READ_CAPS, readBoundedText, describeInstall, type InstallOption, dialogText, iconFreeText, quoted, shownName } from '../../mcp';
import { shownError } from './args';
import { autoStart, inputsSetting, serversSetting, startupMode, writeInputs, writeServers, type SettingsTarget } from '../settings';
import type { AddedServers } from '../trust/addedServers';
import type { QuickInputs } from '../ui/quickInputs';

/**
 * What writing servers into settings works with (extension.ts gives them to the commands at registration, issue 39):
 * the record of servers the host added, and the window's modal dialogs (ui/dialogs.ts) for the questions before a write.
 */
export interface SettingsWrites { added: AddedServers; dialogs: Dialogs }

/**
 * Writes servers into settings (`mcpHost.servers`), keeping the others; asks before replacing names. `opts.target`: user or
 * workspace settings, as the user chose in the registry's or import's dialog (default: the workspace when a folder is
 * open, else the user's). Every server written is recorded
 * first (addedServers.ts), so its first start asks launch consent in either scope; Import, the MCP Registry and Add
 * Server all write through here. `w.added`: that record; `w.dialogs`: the "Replace?" question.
 * Resolves the number of servers written.
 */
export async function addToSettings(w: SettingsWrites, servers: Record<string, unknown>, inputs: unknown[] = [], opts: { target?: SettingsTarget } = {}): Promise<number> {
  const target: SettingsTarget = opts.target ?? (vscode.workspace.workspaceFolders?.length ? 'workspace' : 'user');
  const existing = (serversSetting()[target] ?? {}) as Record<string, unknown>;
  const clash = Object.keys(servers).filter(n => n in existing);
  if (clash.length) {
    const replace = vscode.l10n.t('Replace');
    const ok = await w.dialogs.ask({ severity: 'warning', message: vscode.l10n.t('Replace the existing servers {0}?', clash.join(', ')), buttons: [{ title: replace }] });
    if (ok !== replace) for (const n of clash) delete servers[n];
  }
  if (!Object.keys(servers).length) return 0;
  // Recorded before the write: the settings change starts a sync at once, and it must find the record (fail closed).
  await w.added.record(servers);
  // Inputs first: a server written before the inputs it names is, for a moment, a configuration error ("no input
  // with id …") that the reconcile in between reports and fails the server on.
  if (inputs.length) {
    const cur = inputsSetting()[target] ?? [];
    const ids = new Set(cur.map(i => (i as { id?: string }).id));
    await writeInputs([...cur, ...inputs.filter(i => !ids.has((i as { id?: string }).id))], target);
  }
  await writeServers({ ...existing, ...servers }, target);
  return Object.keys(servers).length;
}

/** The buttons of a dialog that asks where to write servers. */
export interface WhereTitles { user: string; workspace: string; cancel: string }

/**
 * The one question before the host writes servers into settings (a registry install, an import): a modal through the
 * consent governor whose detail is exactly what will be written, with a button per place the user may choose —
 * user settings, workspace settings (only with a folder open in a trusted workspace) — and Cancel (nothing written).
 * `only` offers just that place (a caller that already knows it, such as a test); still asked.
 */
export async function askWhereToWrite(dialogs: Dialogs, dialog: { message: string; detail: string; key: string }, titles: WhereTitles, only?: SettingsTarget): Promise<SettingsTarget | undefined> {
  const workspace = !!vscode.workspace.workspaceFolders?.length && vscode.workspace.isTrusted && only !== 'user';
  const user = only !== 'workspace';
  const answer = await dialogs.ask({
    severity: 'warning', message: dialog.message, detail: dialog.detail,
    buttons: [...(user ? [{ title: titles.user }] : []), ...(workspace ? [{ title: titles.workspace }] : []), { title: titles.cancel, isCloseAffordance: true }],
  }, { key: dialog.key });
  return answer === titles.user && user ? 'user' : answer === titles.workspace && workspace ? 'workspace' : undefined;
}

/** The import dialog's buttons. */
export const IMPORT_TITLES: WhereTitles = { user: vscode.l10n.t('Import into User Settings'), workspace: vscode.l10n.t('Import into Workspace Settings'), cancel: vscode.l10n.t('Cancel') };

/**
 * What Import Servers says when `file` cannot be read (the bounded reader refused it: a FIFO, a device, a directory,
 * too large, missing): the file, why, and the fix.
 */
export function importReadError(file: string, err: unknown): string {
  return err instanceof BoundedReadError
    ? vscode.l10n.t('Could not import {0}, {1}; choose an MCP configuration file (JSON).', file, err.why)
    : vscode.l10n.t('Could not read {0}: {1}', file, shownError(err));
}

/**
 * What an install or import that adds `${input:}` inputs tells the user (empty when it adds none): when each value is
 * asked (the usual input box, masked for a password, as the server starts: now, or at its first start when
 * `mcpHost.startup` is lazy or `mcpHost.autoStart` off) and that it is kept in SecretStorage, not in settings.
 */
export function inputsNote(inputs: unknown[]): string {
  const ids = inputs.map(i => (i as { id?: unknown }).id).filter((id): id is string => typeof id === 'string');
  if (!ids.length) return '';
  const now = startupMode() === 'eager' && autoStart();
  const list = ids.map(id => `\${input:${shownName(id, 80)}}`).join(', ');
  return ' ' + (ids.length === 1
    ? (now ? vscode.l10n.t('{0} is asked now, as the server starts (masked if secret) and kept in SecretStorage (the OS keychain), not in settings.', list)
      : vscode.l10n.t('{0} is asked when the server first starts (masked if secret) and kept in SecretStorage (the OS keychain), not in settings.', list))
    : (now ? vscode.l10n.t('{0} are asked now, as the server starts (masked if secret) and kept in SecretStorage (the OS keychain), not in settings.', list)
      : vscode.l10n.t('{0} are asked when the server first starts (masked if secret) and kept in SecretStorage (the OS keychain), not in settings.', list)));
}

/** Known config files of other MCP clients on this machine and in the workspace. */
function candidateFiles(): { label: string; file: string }[] {
  const home = os.homedir();
  const out: { label: string; file: string }[] = [];
  for (const f of vscode.workspace.workspaceFolders ?? []) {
    out.push({ label: vscode.l10n.t('VS Code mcp.json ({0})', f.name), file: path.join(f.uri.fsPath, '.vscode', 'mcp.json') });
    out.push({ label: vscode.l10n.t('Cursor ({0})', f.name), file: path.join(f.uri.fsPath, '.cursor', 'mcp.json') });
    out.push({ label: vscode.l10n.t('Claude Code project .mcp.json ({0})', f.name), file: path.join(f.uri.fsPath, '.mcp.json') });
  }
  out.push(
    { label: vscode.l10n.t('Claude Desktop'), file: process.platform === 'darwin' ? path.join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json')
      : process.platform === 'win32' ? path.join(process.env.APPDATA ?? home, 'Claude', 'claude_desktop_config.json')
        : path.join(home, '.config', 'Claude', 'claude_desktop_config.json') },
    { label: vscode.l10n.t('Cursor (user)'), file: path.join(home, '.cursor', 'mcp.json') },
    { label: vscode.l10n.t('Windsurf'), file: path.join(home, '.codeium', 'windsurf', 'mcp_config.json') },
    { label: vscode.l10n.t('GitHub Copilot CLI'), file: path.join(home, '.copilot', 'mcp-config.json') },
  );
  return out;
}

/**
 * MCP Host: Import Servers. Reads `.vscode/mcp.json`, `.mcp.json`, Claude Desktop, Cursor, Windsurf or Copilot CLI configuration
 * (argument: a file path; otherwise a pick of the files that exist, or Browse…) into settings (`target`: user or
 * workspace; default: the workspace when a folder is open, else the user's). Every server imported asks launch
 * consent on its first start, in either scope (addToSettings). Resolves the number of servers imported.
 */
export async function importServersCommand(w: SettingsWrites, file?: string, answer?: string, target?: SettingsTarget): Promise<number> {
  let chosen = file;
  if (!chosen) {
    const existing = [];
    for (const c of candidateFiles()) if (await fs.stat(c.file).then(() => true, () => false)) existing.push({ label: c.label, description: c.file, file: c.file });
    const pick = await vscode.window.showQuickPick([...existing, { label: vscode.l10n.t('Browse…'), description: '', file: '' }], { placeHolder: vscode.l10n.t('Import MCP servers from') });
    if (!pick) return 0;
    chosen = pick.file || (await vscode.window.showOpenDialog({ canSelectMany: false, filters: { JSON: ['json', 'jsonc'] } }))?.[0]?.fsPath;
    if (!chosen) return 0;
  }
  let text: string;
  try { text = await readBoundedText(chosen, { maxBytes: READ_CAPS.configFile, what: 'configFile' }); } catch (err) {
    void vscode.window.showErrorMessage(importReadError(chosen, err));
    return 0;
  }
  const r = importConfig(text, 'auto', path.basename(chosen));
  if (r.errors.length) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Import failed: {0}', r.errors.map(e => e.message).join(' ')));
    return 0;
  }
  const total = Object.keys(r.servers).length;
  if (!total) {
    void vscode.window.showInformationMessage(vscode.l10n.t('{0} defines no MCP servers; nothing to import.', chosen));
    return 0;
  }
  // Which servers (asked when the user picked the file and it holds more than one; a caller naming the file imports
  // all it holds), then where, in a dialog that shows each exactly as it will be written.
  let names = Object.keys(r.servers);
  if (!file && names.length > 1) {
    const picks = await vscode.window.showQuickPick(names.map(n => ({
      label: iconFreeText(shownName(n, 120)), name: n, picked: true,
      detail: iconFreeText(shownName(describeInstall({ name: n, server: r.servers[n] as Record<string, unknown>, inputs: [] }).split('\n')[1] ?? '', 200)),
    })), { canPickMany: true, placeHolder: vscode.l10n.t('Import which servers from {0}?', path.basename(chosen)), matchOnDetail: true });
    if (!picks?.length) return 0;
    names = picks.map(p => p.name);
  }
  const servers = Object.fromEntries(names.map(n => [n, r.servers[n]]));
  const inputs = r.inputs as InstallOption['inputs'];
  const detail = [
    // A file from another tool is untrusted text: controls and bidi or invisible characters shown as escapes.
    ...names.map(n => dialogText(describeInstall({ name: n, server: servers[n] as Record<string, unknown>, inputs }))),
    ...(r.warnings.length ? [shownName(r.warnings.join(' '), 1000)] : []),
  ].join('\n\n');
  const where = await askWhereToWrite(w.dialogs, {
    message: names.length === 1
      ? vscode.l10n.t('Import the MCP server {0} from {1}?', quoted(names[0]), shownName(chosen, 200))
      : vscode.l10n.t('Import {0} MCP servers from {1}?', names.length, shownName(chosen, 200)),
    detail, key: `import:${chosen}`,
  }, IMPORT_TITLES, target === 'user' || target === 'workspace' ? target : undefined);
  if (!where) return 0;
  const n = await addToSettings(w, servers, r.inputs, { target: where });
  const note = n ? inputsNote(r.inputs) : '';
  // VS Code's own MCP support runs the servers of .vscode/mcp.json: offer to turn its copy off, or say they run twice.
  if (path.basename(chosen) === 'mcp.json' && path.basename(path.dirname(chosen)) === '.vscode') {
    void vscode.window.showInformationMessage(importedText(n, chosen, note + (r.warnings.length ? ` ${r.warnings.join(' ')}` : '')));
    await afterMcpJsonImport(n, total, answer);
    return n;
  }
  void vscode.window.showInformationMessage(importedText(n, chosen, note + (r.warnings.length ? ` ${r.warnings.join(' ')}` : '')));
  return n;
}

/** "Imported 2 MCP servers from <file>." and what follows (the inputs note, the importer's warnings). */
function importedText(n: number, file: string, rest: string): string {
  return n === 1 ? vscode.l10n.t('Imported 1 MCP server from {0}.{1}', file, rest) : vscode.l10n.t('Imported {0} MCP servers from {1}.{2}', n, file, rest);
}

/**
 * MCP Host: Add Server — asks for a command line (split like a shell would, quotes kept together) or a URL and a
 * name, then writes workspace settings (the reconcile that follows asks launch consent and starts it).
 * Arguments skip the questions (tests, other extensions): kind, command line or URL, and the name (default: the
 * guessed one). Resolves the name.
 */
export async function addServerCommand(w: SettingsWrites & { quickInputs: QuickInputs }, kindArg?: 'stdio' | 'http', targetArg?: string, nameArg?: string): Promise<string | undefined> {
  const kind = kindArg ?? (await w.quickInputs.showPick([
    { label: vscode.l10n.t('Command (stdio)'), value: 'stdio' as const }, { label: vscode.l10n.t('HTTP (Streamable HTTP, SSE fallback)'), value: 'http' as const },
  ], { placeHolder: vscode.l10n.t('What kind of MCP server?') }))?.value;
  if (!kind) return undefined;
  const target = targetArg ?? await w.quickInputs.showInput({
    prompt: kind === 'stdio' ? vscode.l10n.t('Command line, e.g. npx -y @modelcontextprotocol/server-everything (quote arguments with spaces)') : vscode.l10n.t('URL, e.g. https://example.com/mcp'),
    ignoreFocusOut: true,
    validateInput: v => kind === 'http' && !/^https?:\/\//.test(v.trim()) ? vscode.l10n.t('Enter an http(s) URL') : v.trim() ? undefined : vscode.l10n.t('Required'),
  });
  if (!target?.trim()) return undefined;
  const stdio = kind === 'stdio' ? definitionFromCommandLine(target) : undefined;
  const guess = stdio?.name ?? new URL(target.trim()).hostname.split('.')[0];
  const name = nameArg ?? (targetArg !== undefined ? guess : await w.quickInputs.showInput({ prompt: vscode.l10n.t('Server name'), value: guess || 'server', ignoreFocusOut: true }));
  if (!name) return undefined;
  const def = stdio?.definition ?? { type: 'http', url: target.trim() };
  return await addToSettings(w, { [name]: def }) ? name : undefined;
}
