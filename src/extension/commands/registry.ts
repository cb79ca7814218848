/**
 * MCP Host: Browse MCP Servers… — searches the MCP Registry (`mcpHost.registry.url`, v0.1 API) and installs a server
 * from its `server.json` into settings (src/mcp/registry): an npm package with npx, PyPI with uvx, an OCI image with
 * docker run, a remote as http; required env and headers become `${input:}` prompts. Issue 34: a registry entry runs
 * only what the user saw. The pick lists refused entries with serverJson's reason (they cannot be installed) and says
 * when the page cap cut entries; before anything is written a modal (the consent governor, dialogs.ts) shows
 * `describeInstall` of the very definition that is then written — the exact command line and environment, or the URL
 * and header names — and asks where: user settings, workspace settings (a trusted folder only) or Cancel (nothing
 * written). Arguments skip the pick questions (tests): search text, server name, option index; the dialog is always
 * asked. Issue 40: the registry is the configured one (policy.ts `configuredRegistry`: an organisation's private
 * registry first), and the confirmed install is recorded (registryInstalls.ts) so `chat.mcp.access: registry` lets
 * the server run while its definition stays as installed.
 */
import * as vscode from 'vscode';
import { DEFAULT_REGISTRY_URL } from '../settings';
import { configuredRegistry } from '../trust/policy';
import type { RegistryInstalls } from '../trust/registryInstalls';
import type { Dialogs } from '../ui/dialogs';
import { currentWorkspaceScope, scopeKey } from '../trust/inputs';
import { searchRegistry } from '../../mcp/registry/client';
import { describeInstall, pickEntries, type PickEntry, type InstallOption, iconFreeText, quoted, shownName } from '../../mcp';
import { addToSettings, askWhereToWrite, inputsNote, type SettingsWrites } from './settings';
import { errorText } from './args';
import type { SettingsTarget } from '../settings';

export { DEFAULT_REGISTRY_URL };

/** The install dialog's buttons. */
export const INSTALL_USER = vscode.l10n.t('Install in User Settings');
export const INSTALL_WORKSPACE = vscode.l10n.t('Install in Workspace Settings');
export const INSTALL_CANCEL = vscode.l10n.t('Cancel');

type Item = vscode.QuickPickItem & { entry?: PickEntry };

/** What an install records and writes through (extension.ts gives them to the commands at registration, issue 39). */
export interface InstallRecords extends SettingsWrites { registryInstalls: RegistryInstalls }

/** Resolves the name of the server installed, or undefined. */
export async function browseRegistryCommand(records: InstallRecords, searchArg?: string, pickName?: string, optionIndex?: number): Promise<string | undefined> {
  const installs = records.registryInstalls;
  const base = configuredRegistry();
  const search = searchArg ?? await vscode.window.showInputBox({ prompt: vscode.l10n.t('Search the MCP Registry ({0})', base), placeHolder: vscode.l10n.t('e.g. filesystem, github, weather') });
  if (search === undefined) return undefined;
  let page;
  try {
    page = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Searching the MCP Registry…') }, () => searchRegistry(base, search.trim()));
  } catch (e) {
    void vscode.window.showErrorMessage(errorText(e));
    return undefined;
  }
  const { installable, refused, note } = pickEntries(page);
  let chosen: PickEntry | undefined;
  if (pickName !== undefined) chosen = [...installable, ...refused].find(e => e.registryName === pickName);
  else {
    const items: Item[] = [
      ...(note ? [{ label: iconFreeText(shownName(note, 200)), kind: vscode.QuickPickItemKind.Separator }] : []),
      ...installable.map(e => ({ label: e.label, description: e.description, detail: e.detail, entry: e })),
      ...(refused.length ? [{ label: vscode.l10n.t('Refused by MCP Host: cannot be installed'), kind: vscode.QuickPickItemKind.Separator }] : []),
      ...refused.map(e => ({ label: `$(circle-slash) ${e.label}`, description: e.description, detail: e.detail, entry: e })),
    ];
    const pick = await vscode.window.showQuickPick(items, {
      title: note ? iconFreeText(shownName(note, 200)) : undefined,
      placeHolder: installable.length ? vscode.l10n.t('Install which MCP server?') : vscode.l10n.t('No installable server found'), matchOnDescription: true, matchOnDetail: true,
    });
    chosen = pick?.entry;
  }
  if (!chosen) return undefined;
  if (chosen.refused !== undefined) {
    void vscode.window.showErrorMessage(vscode.l10n.t('{0} cannot be installed: {1}', quoted(chosen.registryName || chosen.label), shownName(chosen.refused, 600)));
    return undefined;
  }
  const options = chosen.result.options;
  let option: InstallOption | undefined = optionIndex !== undefined ? options[optionIndex] : options.length === 1 ? options[0] : undefined;
  if (!option && optionIndex === undefined) {
    option = (await vscode.window.showQuickPick(options.map(o => ({ label: iconFreeText(shownName(o.label, 120)), o })), { placeHolder: vscode.l10n.t('Install how?') }))?.o;
  }
  if (!option) return undefined;
  const target = await askWhere(records.dialogs, base, chosen, option);
  if (!target) return undefined;
  // The user confirmed: the install is recorded (issue 40: what `chat.mcp.access: registry` lets run) before the
  // write, whose sync must find it; an install that writes nothing after all forgets it again.
  const recorded = await installs.record({ registry: base, entry: shownName(chosen.registryName, 200), version: chosen.version }, { [option.name]: option.server }, target, scopeKey(currentWorkspaceScope()));
  // The same object the dialog described is what is written.
  let n = 0;
  try {
    n = await addToSettings(records, { [option.name]: option.server }, option.inputs, { target });
  } finally {
    if (!n) await installs.forget(recorded);
  }
  if (n && option.inputs.length) void vscode.window.showInformationMessage(vscode.l10n.t('Installed {0}.{1}', quoted(option.name), inputsNote(option.inputs)));
  return n ? option.name : undefined;
}

/** The install dialog: where to write `option` (described exactly), or undefined for Cancel. */
function askWhere(dialogs: Dialogs, base: string, entry: PickEntry, option: InstallOption): Promise<SettingsTarget | undefined> {
  const left = entry.result.errors.length ? `\n\n${shownName(vscode.l10n.t('Other ways to install it were refused: {0}', entry.result.errors.join(' ')), 1000)}` : '';
  return askWhereToWrite(dialogs, {
    message: vscode.l10n.t('Install the MCP server {0} ({1}) from the MCP Registry at {2}?', quoted(entry.result.title || entry.registryName), quoted(entry.registryName), shownName(base, 120)),
    detail: `${describeInstall(option)}${left}`,
    key: `registry-install:${entry.registryName}`,
  }, { user: INSTALL_USER, workspace: INSTALL_WORKSPACE, cancel: INSTALL_CANCEL });
}
