import * as vscode from 'vscode';
import type { InputDefinition } from '../mcp';

const KEY_PREFIX = 'mcpHost.input.';
const INDEX_KEY = 'mcpHost.inputIds';

/**
 * `${input:id}` values: asked with an input box on first need (masked for password inputs), kept in
 * SecretStorage (the OS keychain), never in settings or logs.
 */
export class InputStore {
  private readonly pending = new Map<string, Promise<string>>();
  /** Shows the input box; tests replace it through the extension's test API. */
  ask: (options: vscode.InputBoxOptions) => Thenable<string | undefined> = o => vscode.window.showInputBox(o);

  constructor(private readonly secrets: vscode.SecretStorage, private readonly state: vscode.Memento) {}

  /** The stored value of `input`, or asks the user; rejects when the user cancels. */
  resolve(input: InputDefinition, server?: string): Promise<string> {
    let p = this.pending.get(input.id);
    if (!p) {
      p = this.lookup(input, server).finally(() => this.pending.delete(input.id));
      this.pending.set(input.id, p);
    }
    return p;
  }

  /** Forgets every stored input value (or only `ids`); returns how many were cleared. */
  async clear(ids?: string[]): Promise<number> {
    const known = this.ids();
    const drop = ids ?? known;
    for (const id of drop) await this.secrets.delete(KEY_PREFIX + id);
    await this.state.update(INDEX_KEY, known.filter(id => !drop.includes(id)));
    return drop.length;
  }

  /** The stored value of input `id`, without asking. */
  async stored(id: string): Promise<string | undefined> {
    return this.secrets.get(KEY_PREFIX + id);
  }

  /** Ids with a stored value. */
  ids(): string[] {
    return this.state.get<string[]>(INDEX_KEY, []);
  }

  private async lookup(input: InputDefinition, server?: string): Promise<string> {
    const stored = await this.secrets.get(KEY_PREFIX + input.id);
    if (stored !== undefined) return stored;
    const value = await this.ask({
      title: `MCP: ${input.description ?? input.id}`,
      prompt: `Value for \${input:${input.id}}${server ? ` (server "${server}")` : ''}; kept in the OS keychain.`,
      value: input.password ? undefined : input.default,
      password: input.password === true,
      ignoreFocusOut: true,
    });
    if (value === undefined) throw new Error(`No value given for \${input:${input.id}}`);
    await this.secrets.store(KEY_PREFIX + input.id, value);
    if (!this.ids().includes(input.id)) await this.state.update(INDEX_KEY, [...this.ids(), input.id]);
    return value;
  }
}
