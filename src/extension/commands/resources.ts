import * as vscode from 'vscode';
import type { Resource, ResourceTemplateType as ResourceTemplate } from '@modelcontextprotocol/client';
import { UriTemplate } from '@modelcontextprotocol/client';
import { countOf, quoted } from '../../mcp';
import type { ResourceFileSystem } from '../documents/resourceFs';
import { pickServer, requireRunning, running, shownError, type ServerAccess } from './args';
import { askWithCompletion } from './complete';

/** Opens `uri` of `server` as documents; shows a readable error instead of throwing. Resolves the document URIs. */
export async function openResource(fs: ResourceFileSystem, server: string, uri: string): Promise<vscode.Uri[]> {
  try {
    return await fs.open(server, uri);
  } catch (err) {
    fs.log?.(`open ${uri} of ${server}: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not read {0} from {1}: {2}', uri, quoted(server), shownError(err)));
    return [];
  }
}

/** MCP Host: Read Resource by URI. Arguments: server (node or name) and URI; otherwise asks, offering the known resources. */
export async function readResourceCommand(access: ServerAccess, fs: ResourceFileSystem, arg?: unknown, uri?: string): Promise<vscode.Uri[]> {
  const picked = await pickServer(access, arg, { filter: running(access.startOnUse, 'resources'), none: vscode.l10n.t('No running MCP server offers resources.') });
  const h = picked && await requireRunning(access, picked);
  if (!h) return [];
  let target = uri ?? (arg as { resource?: Resource } | undefined)?.resource?.uri;
  if (!target) {
    const qp = vscode.window.createQuickPick();
    qp.placeholder = vscode.l10n.t('Resource URI on {0} (type any URI or pick one)', h.name);
    const known = h.catalogue.resources.map(r => ({ label: r.uri, description: r.title ?? r.name }));
    qp.items = known;
    qp.onDidChangeValue(v => { qp.items = v ? [{ label: v, description: vscode.l10n.t('(as typed)') }, ...known] : known; });
    target = await new Promise<string | undefined>(resolve => {
      qp.onDidAccept(() => { resolve(qp.selectedItems[0]?.label ?? qp.value); qp.hide(); });
      qp.onDidHide(() => { resolve(undefined); qp.dispose(); });
      qp.show();
    });
  }
  return target ? openResource(fs, h.name, target) : [];
}

/** MCP Host: Browse Resources. Quick pick of a server's resources (every page, from the core's catalogue); opens the choice. */
export async function browseResourcesCommand(access: ServerAccess, fs: ResourceFileSystem, arg?: unknown): Promise<vscode.Uri[]> {
  const picked = await pickServer(access, arg, { filter: running(access.startOnUse, 'resources'), none: vscode.l10n.t('No running MCP server offers resources.') });
  const h = picked && await requireRunning(access, picked);
  if (!h) return [];
  const pick = await vscode.window.showQuickPick(
    h.catalogue.resources.map(r => ({ label: r.title ?? r.name, description: r.uri, detail: r.description, uri: r.uri })),
    { placeHolder: `${countOf(h.catalogue.resources.length, 'resource')} of ${h.name}`, matchOnDescription: true },
  );
  return pick ? openResource(fs, h.name, pick.uri) : [];
}

/**
 * MCP Host: Read Resource from Template. Arguments: server, template (node or URI template) and the
 * variables (when given, nothing is asked). Each variable is asked with completion values.
 */
export async function readTemplateCommand(access: ServerAccess, fs: ResourceFileSystem, arg?: unknown, uriTemplate?: string, vars?: Record<string, string>): Promise<vscode.Uri[]> {
  const picked = await pickServer(access, arg, { filter: running(access.startOnUse, 'resources'), none: vscode.l10n.t('No running MCP server offers resources.') });
  const h = picked && await requireRunning(access, picked);
  if (!h) return [];
  const tplText = uriTemplate ?? (arg as { template?: ResourceTemplate } | undefined)?.template?.uriTemplate ?? (await vscode.window.showQuickPick(
    h.catalogue.resourceTemplates.map(t => ({ label: t.uriTemplate, description: t.title ?? t.name, detail: t.description })),
    { placeHolder: vscode.l10n.t('Resource template of {0}', h.name) },
  ))?.label;
  if (!tplText) return [];
  let tpl: UriTemplate;
  try {
    tpl = new UriTemplate(tplText);
  } catch (err) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Invalid URI template {0}: {1}', tplText, shownError(err)));
    return [];
  }
  const values: Record<string, string> = { ...(vars ?? {}) };
  if (!vars) {
    const names = tpl.variableNames;
    for (const [i, name] of names.entries()) {
      const v = await askWithCompletion(access.quickInputs, h, { type: 'ref/resource', uri: tplText }, name, values, {
        title: `${tplText} (${i + 1}/${names.length}): ${name}`, required: true,
      });
      if (v === undefined) return [];
      values[name] = v;
    }
  }
  return openResource(fs, h.name, tpl.expand(values));
}
