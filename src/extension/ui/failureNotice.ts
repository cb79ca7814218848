/**
 * What a failure toast says and offers, and whether it is said at all. A failure that comes from the settings
 * (a command not on PATH, a missing cwd or variable, an invalid definition) offers Open Settings; a crash offers
 * Restart. Long details (the PATH that was searched) stay in the server's log. A failure the user has seen is not
 * shown again after a reload (remembered in the workspace state until the server runs, or the failure changes), as
 * the server name and a hash of the message: a failure message can carry a path or a value from the resolved
 * definition, and nothing of it is kept in clear.
 */
import { createHash } from 'node:crypto';
import type * as vscode from 'vscode';
import { quoted, shownName } from '../../mcp';
import * as l10n from '@vscode/l10n';

export const SEEN_FAILURES_KEY = 'mcpHost.seenFailures';
/** Failures remembered per workspace (oldest forgotten first). */
const MAX_SEEN = 100;

export type FailureKind = 'settings' | 'crash';

export interface FailureNotice {
  kind: FailureKind;
  /** The toast's text: the message without the long details. */
  text: string;
  /** The buttons, in order. */
  actions: string[];
  /** The action labels as shown (localised), to tell which one was picked. */
  labels: { openSettings: string; showLogs: string; restart: string };
  /** What the log gets (everything). */
  logText: string;
}

const SETTINGS = /not found on PATH|\bcwd\b|working directory|does not exist|not a directory|ENOENT|EACCES|permission denied|is not set|\$\{(?:input|env):|invalid (?:definition|server|setting|url)|mcpHost\.servers|unsupported type|no command|needs a command|needs a url/i;

/**
 * Classifies a server's final failure and shortens it for a toast. `fromSettings` is the core's own word (the error
 * state's `fromSettings`); the words of the message are a fallback that holds in English only (issue 40: the core's
 * messages are localised in the editor).
 */
export function failureNotice(server: string, message: string, crashLoop: boolean, fromSettings = false): FailureNotice {
  const kind: FailureKind = !crashLoop && (fromSettings || SETTINGS.test(message)) ? 'settings' : 'crash';
  // The toast names the server already; the PATH searched can be long: it goes to the log only.
  const own = `server \`${server}\`: `;
  const short = (message.startsWith(own) ? message.slice(own.length) : message)
    .replace(/\s*\((?:PATH|Path)=[^)]*\)/g, l10n.t(' (the PATH searched is in the log)')).replace(/\s+/g, ' ').trim();
  // A notification makes `[label](command:…)` clickable and shows controls and bidi overrides: the server's words
  // (its stderr is quoted in the message) are one line without them, cut (src/mcp/logging/humanText.ts).
  const text = kind === 'settings'
    ? l10n.t('MCP server {0} cannot start: {1}', quoted(server), shownName(short, 400))
    : l10n.t('MCP server {0} failed: {1}', quoted(server), shownName(short, 400));
  const labels = { openSettings: l10n.t('Open Settings'), showLogs: l10n.t('Show Logs'), restart: l10n.t('Restart') };
  return { kind, text, actions: kind === 'settings' ? [labels.openSettings, labels.showLogs] : [labels.showLogs, labels.restart], labels, logText: message };
}

/** A failure's identity across reloads: the server and a sha256 of the message without numbers (pids, ports, times change). */
export function failureKey(server: string, message: string): string {
  return `${server}\u0000${createHash('sha256').update(message.replace(/\d+/g, '#')).digest('hex')}`;
}

const STORED_SHAPE = /\u0000[0-9a-f]{64}$/;

/** The failures the user was shown, per workspace. */
export class SeenFailures {
  constructor(private readonly memento: Pick<vscode.Memento, 'get' | 'update'>) {
    // Entries from before kept the message itself: dropped (such a failure may be shown once more).
    const v = memento.get<unknown>(SEEN_FAILURES_KEY);
    if (v !== undefined && (!Array.isArray(v) || v.some(x => typeof x !== 'string' || !STORED_SHAPE.test(x)))) {
      void memento.update(SEEN_FAILURES_KEY, Array.isArray(v) ? v.filter(x => typeof x === 'string' && STORED_SHAPE.test(x)) : undefined);
    }
  }

  private all(): string[] {
    const v = this.memento.get<unknown>(SEEN_FAILURES_KEY);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  }

  has(key: string): boolean { return this.all().includes(key); }

  async add(key: string): Promise<void> {
    const all = this.all().filter(k => k !== key);
    all.push(key);
    await this.memento.update(SEEN_FAILURES_KEY, all.slice(-MAX_SEEN));
  }

  /** Forgets a server's failures (it ran, or was removed): the next failure is news again. */
  async forget(server: string): Promise<void> {
    const all = this.all();
    const kept = all.filter(k => !k.startsWith(`${server}\u0000`));
    if (kept.length !== all.length) await this.memento.update(SEEN_FAILURES_KEY, kept);
  }
}
