/**
 * Repeated sandbox denials (issue 24, H93): when the OS sandbox refuses a server the same thing again and again
 * (writes into one folder, connections to one host), offer "Allow …". Nothing is written until the user agrees
 * in a second, modal question naming the exact setting and value; then the server's own `sandbox` setting is
 * extended where the server is defined (user or workspace settings), and the host restarts it as for any change.
 * Each denial itself is already in the server's log (the core logs it with source `sandbox`).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Dialogs } from '../ui/dialogs';
import type { McpHost, SandboxDenial } from '../../mcp';
import { serversSetting, writeServers } from '../settings';

/** Denials of the same kind and target before "Allow …" is offered. */
export const REPEATED_DENIALS = 3;

/** What an "Allow …" would add: `allowWrite` gets the folder, `allowedDomains` the host:port. */
export interface SandboxGrant {
  setting: 'filesystem.allowWrite' | 'network.allowedDomains';
  value: string;
}

/** The grant that would stop a denial from recurring; undefined for a denial no setting can lift. */
export function grantFor(d: SandboxDenial): SandboxGrant | undefined {
  if (d.kind === 'write' && d.target) return { setting: 'filesystem.allowWrite', value: path.dirname(d.target) };
  if (d.kind === 'network' && d.target) return { setting: 'network.allowedDomains', value: d.target };
  return undefined;
}

/** Asks the user; replaceable so tests can answer. `offer` is the notification, `confirm` the modal question. */
export interface DenialPrompts {
  offer(server: string, grant: SandboxGrant, count: number): Thenable<boolean>;
  confirm(server: string, grant: SandboxGrant, target: 'user' | 'workspace'): Thenable<boolean>;
}

/** The real prompts: a notification, then the modal through `dialogs` (the window's one governor). */
const defaultPrompts = (dialogs: Dialogs): DenialPrompts => ({
  async offer(server, grant, count) {
    const allow = vscode.l10n.t('Allow…');
    const text = grant.setting === 'network.allowedDomains'
      ? vscode.l10n.t('The sandbox refused server "{0}" {1} connections to {2}.', server, count, grant.value)
      : vscode.l10n.t('The sandbox refused server "{0}" {1} writes in {2}.', server, count, grant.value);
    const pick = await vscode.window.showWarningMessage(text, allow);
    return pick === allow;
  },
  async confirm(server, grant, target) {
    const allow = vscode.l10n.t('Allow');
    const pick = await dialogs.ask({
      severity: 'warning',
      message: grant.setting === 'network.allowedDomains' ? vscode.l10n.t('Let server "{0}" connect to {1}?', server, grant.value) : vscode.l10n.t('Let server "{0}" write in {1}?', server, grant.value),
      detail: vscode.l10n.t('Adds "{0}" to mcpHost.servers.{1}.sandbox.{2} in your {3} settings; the server restarts with it.', grant.value, server, grant.setting, target),
      buttons: [{ title: allow }],
    }, { key: `sandbox:${server}/${grant.setting}/${grant.value}` });
    return pick === allow;
  },
});

export class SandboxDenials implements vscode.Disposable {
  private readonly counts = new Map<string, number>();
  private readonly offered = new Set<string>();
  private readonly subscription: { dispose(): void };
  prompts: DenialPrompts;

  /** `dialogs`: the window's modal dialogs (ui/dialogs.ts), for the confirmation. */
  constructor(host: McpHost, private readonly originOf: (server: string) => 'user' | 'workspace' | undefined, dialogs: Dialogs) {
    this.prompts = defaultPrompts(dialogs);
    this.subscription = host.onDidDenyInSandbox(e => void this.denied(e.server, e.denial));
  }

  private async denied(server: string, d: SandboxDenial): Promise<void> {
    const grant = grantFor(d);
    if (!grant) return;
    const key = `${server}\0${grant.setting}\0${grant.value}`;
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    if (n < REPEATED_DENIALS || this.offered.has(key)) return;
    this.offered.add(key);
    const target = this.originOf(server);
    if (!target) return;
    if (!await this.prompts.offer(server, grant, n)) return;
    if (!await this.prompts.confirm(server, grant, target)) return;
    await allow(server, grant, target);
  }

  dispose(): void {
    this.subscription.dispose();
  }
}

/** Adds the grant to the server's `sandbox` setting where the server is defined. */
export async function allow(server: string, grant: SandboxGrant, target: 'user' | 'workspace'): Promise<void> {
  const current = serversSetting()[target] ?? {};
  const servers = structuredClone(current) as Record<string, Record<string, unknown>>;
  const def = servers[server];
  if (!def || typeof def !== 'object') return;
  const sandbox = (def.sandbox ??= {}) as Record<string, Record<string, string[]>>;
  const [group, key] = grant.setting.split('.') as ['filesystem' | 'network', string];
  const section = (sandbox[group] ??= {});
  const list = Array.isArray(section[key]) ? section[key] : (section[key] = []);
  if (!list.includes(grant.value)) list.push(grant.value);
  await writeServers(servers, target);
}
