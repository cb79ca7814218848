import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import { redactorFor, type StdioServerDefinition } from '../mcp';
import { parseDotenv } from '../mcp/config/envFile';

const KEY = 'mcpHost.launchConsent';

/** What the user answered: allow, deny, or dismissed the dialog. */
export type ConsentAnswer = 'allow' | 'deny' | undefined;

/** Shows the consent question; replaceable so tests can answer without a dialog. */
export type ConsentPrompt = (def: StdioServerDefinition, detail: string) => Thenable<ConsentAnswer>;

/**
 * Launch consent for stdio servers defined in workspace settings: the first start shows the exact
 * command line, cwd and environment variable names, and the answer is remembered against a
 * fingerprint of the definition, so an edited command asks again.
 */
export class LaunchConsent {
  private readonly denied = new Set<string>();
  private readonly asking = new Map<string, Promise<boolean>>();
  /** The dialog; tests replace it through the extension's test API. */
  prompt: ConsentPrompt = modalPrompt;

  constructor(private readonly state: vscode.Memento, private readonly fingerprint: (def: StdioServerDefinition) => string) {}

  /** True when this exact definition was allowed before. */
  isAllowed(def: StdioServerDefinition): boolean {
    return this.state.get<string[]>(KEY, []).includes(this.fingerprint(def));
  }

  /** True when the user said no in this session (asking again needs an explicit start). */
  wasDenied(def: StdioServerDefinition): boolean {
    return this.denied.has(this.fingerprint(def));
  }

  /** Asks once (concurrent callers share the dialog); resolves true when launching is allowed. */
  ensure(def: StdioServerDefinition): Promise<boolean> {
    if (this.isAllowed(def)) return Promise.resolve(true);
    const fp = this.fingerprint(def);
    let p = this.asking.get(fp);
    if (!p) {
      p = this.ask(def, fp).finally(() => this.asking.delete(fp));
      this.asking.set(fp, p);
    }
    return p;
  }

  /** Forgets every answer. */
  async reset(): Promise<void> {
    this.denied.clear();
    await this.state.update(KEY, []);
  }

  private async ask(def: StdioServerDefinition, fp: string): Promise<boolean> {
    const answer = await this.prompt(def, describeLaunch(def, await envFileKeys(def)));
    if (answer !== 'allow') {
      this.denied.add(fp);
      return false;
    }
    this.denied.delete(fp);
    await this.state.update(KEY, [...this.state.get<string[]>(KEY, []), fp]);
    return true;
  }
}

/** The exact command line (with `${input:}` values hidden), working directory and environment variable names (never values). */
export function describeLaunch(def: StdioServerDefinition, fileKeys?: string[]): string {
  const envKeys = Object.keys(def.env ?? {});
  const commandLine = [def.command, ...def.args].map(quote).join(' ');
  return [
    `Command: ${redactorFor(def).text(commandLine, '••••')}`,
    `Working directory: ${def.cwd ?? `(inherited: ${process.cwd()})`}`,
    `Environment variables: ${envKeys.length ? envKeys.join(', ') : '(none added)'}`,
    ...(def.envFile ? [`Environment file: ${def.envFile}${fileKeys ? ` (${fileKeys.join(', ') || 'empty'})` : ' (not readable)'}`] : []),
  ].join('\n');
}

/** Variable names in the server's envFile, or undefined when there is none or it cannot be read. */
async function envFileKeys(def: StdioServerDefinition): Promise<string[] | undefined> {
  if (!def.envFile) return undefined;
  try {
    return Object.keys(parseDotenv(await fs.readFile(def.envFile, 'utf8')).vars);
  } catch {
    return undefined;
  }
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg);
}

async function modalPrompt(def: StdioServerDefinition, detail: string): Promise<ConsentAnswer> {
  const allow = 'Allow';
  const deny = "Don't Allow";
  const pick = await vscode.window.showWarningMessage(
    `The workspace settings want to launch the MCP server "${def.name}". Do you trust this command?`,
    { modal: true, detail },
    allow, deny,
  );
  return pick === allow ? 'allow' : pick === deny ? 'deny' : undefined;
}
