import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { InputDefinition } from '../../mcp';
import type { TestSeams } from '../testSupport';

const KEY_PREFIX = 'mcpHost.input.';
const INDEX_KEY = 'mcpHost.inputKeys';
/** Before values were scoped: keys `mcpHost.input.<id>`, listed under this key (dropped by `clear`). */
const LEGACY_INDEX_KEY = 'mcpHost.inputIds';

/**
 * Where an input is declared, which is where its value is kept: user settings, or one workspace
 * (identified by its workspace file or first folder). A workspace that declares an id the user
 * answered elsewhere gets asked again, never the other scope's value.
 */
export type InputScope = { kind: 'user' } | { kind: 'workspace'; id: string };

/** The scope of the open workspace (its `.code-workspace` file, else its first folder). */
export function currentWorkspaceScope(): InputScope {
  const anchor = vscode.workspace.workspaceFile ?? vscode.workspace.workspaceFolders?.[0]?.uri;
  return { kind: 'workspace', id: anchor ? anchor.toString() : 'empty-window' };
}

/** The storage name of a scope: `user`, or `ws-<hash of the workspace id>`. */
export function scopeKey(scope: InputScope): string {
  return scope.kind === 'user' ? 'user' : `ws-${createHash('sha256').update(scope.id).digest('hex').slice(0, 24)}`;
}

/**
 * `${input:id}` values: asked with an input box on first need (masked for password inputs), kept in
 * SecretStorage (the OS keychain) under the scope that declares the input, never in settings or logs.
 */
export class InputStore {
  private readonly pending = new Map<string, Promise<string>>();
  /** Shows the input box: `ask` as given (a store of its own in a test), else the test seam, else the real input box. */
  private readonly ask: (options: vscode.InputBoxOptions) => Thenable<string | undefined>;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly state: vscode.Memento,
    options: { ask?: (options: vscode.InputBoxOptions) => Thenable<string | undefined>; seams?: Pick<TestSeams, 'inputPrompt'> } = {},
  ) {
    const { ask, seams } = options;
    this.ask = ask ?? (o => (seams?.inputPrompt ? seams.inputPrompt(o) : vscode.window.showInputBox(o)));
  }

  /** The stored value of `input` in `scope`, or asks the user; rejects when the user cancels. */
  resolve(input: InputDefinition, scope: InputScope, server?: string): Promise<string> {
    const key = secretKey(scope, input.id);
    let p = this.pending.get(key);
    if (!p) {
      p = this.lookup(input, key, scope, server).finally(() => this.pending.delete(key));
      this.pending.set(key, p);
    }
    return p;
  }

  /** Forgets every stored input value (or only those of `ids`, in every scope); returns how many were cleared. */
  async clear(ids?: string[]): Promise<number> {
    const known = this.keys();
    const drop = ids ? known.filter(k => ids.includes(idOf(k))) : known;
    for (const k of drop) await this.secrets.delete(k);
    await this.state.update(INDEX_KEY, known.filter(k => !drop.includes(k)));
    const legacy = this.state.get<string[]>(LEGACY_INDEX_KEY, []);
    const legacyDrop = ids ? legacy.filter(id => ids.includes(id)) : legacy;
    for (const id of legacyDrop) await this.secrets.delete(KEY_PREFIX + id);
    if (legacy.length) await this.state.update(LEGACY_INDEX_KEY, legacy.filter(id => !legacyDrop.includes(id)));
    return drop.length + legacyDrop.length;
  }

  /** The stored value of input `id` in `scope`, without asking. */
  async stored(id: string, scope: InputScope): Promise<string | undefined> {
    return this.secrets.get(secretKey(scope, id));
  }

  /** Ids with a stored value (in any scope). */
  ids(): string[] {
    return [...new Set(this.keys().map(idOf))];
  }

  private keys(): string[] {
    return this.state.get<string[]>(INDEX_KEY, []);
  }

  private async lookup(input: InputDefinition, key: string, scope: InputScope, server?: string): Promise<string> {
    const stored = await this.secrets.get(key);
    if (stored !== undefined) return stored;
    const where = scope.kind === 'user' ? vscode.l10n.t('user settings') : vscode.l10n.t('this workspace');
    const value = await this.ask({
      title: vscode.l10n.t('MCP Host: {0}', input.description ?? input.id),
      // The `${input:…}` reference goes in whole as a value: a brace around a placeholder is not l10n.t's format.
      prompt: vscode.l10n.t('Value for {0}{1}, declared in {2}; kept in the OS keychain for {3} only.', `\${input:${input.id}}`, server ? vscode.l10n.t(' (server "{0}")', server) : '', where, where),
      value: input.password ? undefined : input.default,
      password: input.password === true,
      ignoreFocusOut: true,
    });
    if (value === undefined) throw new Error(`No value given for \${input:${input.id}}`);
    await this.secrets.store(key, value);
    if (!this.keys().includes(key)) await this.state.update(INDEX_KEY, [...this.keys(), key]);
    return value;
  }
}

function secretKey(scope: InputScope, id: string): string {
  return `${KEY_PREFIX}${scopeKey(scope)}.${id}`;
}

function idOf(key: string): string {
  const rest = key.slice(KEY_PREFIX.length);
  return rest.slice(rest.indexOf('.') + 1);
}
