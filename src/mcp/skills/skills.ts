/**
 * Skills (`io.modelcontextprotocol/skills`, SEP-2640) of one server, on the SDK's `SkillsClient`
 * (`@modelcontextprotocol/client/ext/skills`): the list (name and description of each skill, read with
 * `skills/list` when the session is installed, bounded like a catalogue list), and a skill's files read on use
 * only, each verified by the SDK (listed, size, digest, and for `SKILL.md` the frontmatter against the entry).
 * Nothing of a skill is fetched until it is loaded; a file that fails verification is refused with a message
 * naming server, skill and file. Server text stays data: callers render it through logging/display.ts.
 */
import type { Client } from '@modelcontextprotocol/client';
import { SKILLS_EXTENSION_ID, SKILL_LIMITS, SkillVerificationError, SkillsClient, type Skill } from '@modelcontextprotocol/client/ext/skills';
import { Emitter, type Event } from '../events';
import { McpHostError, messageOf } from '../errors';
import { limitMessage, type Limits } from '../limits';
import { approxJsonSize } from '../jsonWalks';
import { shownName } from '../logging/humanText';
import * as l10n from '@vscode/l10n';

export { SKILLS_EXTENSION_ID };

/** What the client declares under `capabilities.extensions` (the extension takes no settings). */
export function skillsClientCapability(): Record<string, Record<string, never>> {
  return { [SKILLS_EXTENSION_ID]: {} };
}

/** Longest skill description kept from a listing, in characters (the rest is cut with an ellipsis). */
export const MAX_SKILL_DESCRIPTION = 1024;

/** One skill as listed (nothing of its files read yet). */
export interface SkillInfo {
  /** The frontmatter `name` (server text). */
  name: string;
  /** The frontmatter `description` (server text), at most MAX_SKILL_DESCRIPTION characters. */
  description: string;
  /** The `SKILL.md` URI. */
  uri: string;
  /** Number of files the entry lists (undefined for a `"dynamic"` skill). */
  files?: number;
  /** Bytes of all the files the entry lists. */
  bytes?: number;
}

/** A skill's `SKILL.md` (or another of its files) as read and verified. */
export interface LoadedSkillFile {
  server: string;
  skill: string;
  uri: string;
  /** The whole file as text. */
  text: string;
  /** `SKILL.md` only: the markdown after the frontmatter. */
  body?: string;
  /** Size and digest were checked (false only for a `"dynamic"` skill, whose frontmatter still was). */
  verified: boolean;
}

/**
 * Why a skill (or one of its files) was refused (issue 40: facts, never English text; `skillRefusal` says it). The
 * skill, file and texts from the server or the SDK are already cut for display (`shownName`).
 */
export type SkillRefusal =
  | { reason: 'unsupported' }
  | { reason: 'unknown'; skill: string }
  | { reason: 'oversize'; skill: string; file: string; files: number; bytes: number }
  | { reason: 'size' | 'digest'; skill: string; file: string }
  | { reason: 'frontmatter'; skill: string; file: string; /** The SDK's differences (at most five), or none. */ differences: string[] }
  | { reason: 'unlisted'; skill: string; file: string; /** The SDK's own words, when it refused the reference itself. */ detail?: string }
  | { reason: 'read'; skill: string; file: string; cause: string };

/** Why a skill was refused, in the configured language (English in the CLI): one whole message per situation. */
export function skillRefusal(server: string, r: SkillRefusal): string {
  switch (r.reason) {
    case 'unsupported': return l10n.t('server `{0}` offers no skills', server);
    case 'unknown': return l10n.t('server `{0}` lists no skill `{1}`', server, r.skill);
    case 'oversize': return l10n.t('server `{0}`, skill `{1}`, file `{2}`: refused, the skill lists {3} files of {4} bytes (a host loads skills up to {5} files and {6} bytes)',
      server, r.skill, r.file, String(r.files), String(r.bytes), String(SKILL_LIMITS.files), String(SKILL_LIMITS.bytes));
    case 'digest': return l10n.t('server `{0}`, skill `{1}`, file `{2}`: refused, its digest does not match the skill entry; the skill was not loaded', server, r.skill, r.file);
    case 'size': return l10n.t('server `{0}`, skill `{1}`, file `{2}`: refused, its size does not match the skill entry; the skill was not loaded', server, r.skill, r.file);
    case 'frontmatter': return r.differences.length
      ? l10n.t('server `{0}`, skill `{1}`, file `{2}`: refused, its frontmatter does not match the skill entry ({3}); the skill was not loaded', server, r.skill, r.file, r.differences.join('; '))
      : l10n.t('server `{0}`, skill `{1}`, file `{2}`: refused, its frontmatter does not match the skill entry; the skill was not loaded', server, r.skill, r.file);
    case 'unlisted': return r.detail === undefined
      ? l10n.t('server `{0}`, skill `{1}`, file `{2}`: refused, the skill entry does not list it; the skill was not loaded', server, r.skill, r.file)
      : l10n.t('server `{0}`, skill `{1}`, file `{2}`: refused, {3}', server, r.skill, r.file, r.detail);
    case 'read': return l10n.t('server `{0}`, skill `{1}`, file `{2}`: could not be read: {3}', server, r.skill, r.file, r.cause);
  }
  return r satisfies never;
}

/** A skill file refused: verification failed, the entry is over the host's limits, or no such skill. */
export class SkillError extends McpHostError {
  readonly reason: SkillRefusal['reason'];
  constructor(readonly server: string, readonly refusal: SkillRefusal, options?: { cause?: unknown }) {
    super(skillRefusal(server, refusal), undefined, options);
    this.name = 'SkillError';
    this.reason = refusal.reason;
  }
}

/** What the skills of a server need of its connection. */
export interface SkillsHost {
  name(): string;
  limits(): Limits;
  requestTimeout(): number;
  warn(message: string): void;
}

/** The skills of one server (see the header); `attach` a session's Client when it is installed. */
export class ServerSkills {
  private client?: Client;
  private skillsClient?: SkillsClient;
  private entries: Skill[] = [];
  private infos: SkillInfo[] = [];
  private readonly _onDidChange = new Emitter<readonly SkillInfo[]>();
  readonly onDidChange: Event<readonly SkillInfo[]> = this._onDidChange.event;

  constructor(private readonly host: SkillsHost) {}

  /** The listed skills of the current session (empty when the server does not offer the extension). */
  get list(): readonly SkillInfo[] { return this.infos; }

  /** True when the current session's server declared the extension. */
  get supported(): boolean { return !!this.skillsClient?.supported; }

  /** A new session: its Client lists and reads from now on; the list is read again. */
  async attach(client: Client): Promise<void> {
    this.client = client;
    this.skillsClient = new SkillsClient(client, { skipInvalid: true });
    this.set([], []);
    if (this.skillsClient.supported) await this.refresh();
  }

  /** The session ended. */
  clear(): void {
    this.client = undefined;
    this.skillsClient = undefined;
    this.set([], []);
  }

  /** Reads `skills/list` again (every page, bounded); a failure is a warning and keeps the last list. */
  async refresh(): Promise<void> {
    const sc = this.skillsClient;
    const client = this.client;
    if (!sc?.supported) return;
    const server = this.host.name();
    try {
      const listing = await sc.list({}, { timeout: this.host.requestTimeout() });
      if (this.client !== client) return;
      if (listing.invalid.length) {
        const first = listing.invalid.slice(0, 3).map(i => `#${i.index}${i.uri ? ` ${shownName(i.uri, 120)}` : ''}: ${shownName(i.reason, 200)}`).join('; ');
        this.host.warn(`server \`${server}\`: ${listing.invalid.length} skill entr${listing.invalid.length === 1 ? 'y' : 'ies'} refused (${first}${listing.invalid.length > 3 ? '; …' : ''})`);
      }
      const { maxCatalogueItems, maxCatalogueBytes } = this.host.limits();
      const kept: Skill[] = [];
      let bytes = 0;
      for (const s of listing.skills) {
        if (kept.length >= maxCatalogueItems) {
          this.host.warn(limitMessage(server, maxCatalogueItems, { kind: 'skillItems' }));
          break;
        }
        bytes += approxJsonSize(s, maxCatalogueBytes - bytes);
        if (bytes > maxCatalogueBytes) {
          this.host.warn(limitMessage(server, maxCatalogueBytes, { kind: 'skillBytes' }));
          break;
        }
        kept.push(s);
      }
      this.set(kept, kept.map(infoOf));
    } catch (err) {
      if (this.client === client) this.host.warn(`server \`${server}\`: could not list skills: ${messageOf(err)}`);
    }
  }

  /** The listed skill called `nameOrUri` (its name, unique in the list, or its `SKILL.md` URI). */
  find(nameOrUri: string): SkillInfo | undefined {
    const i = this.indexOf(nameOrUri);
    return i < 0 ? undefined : this.infos[i];
  }

  private indexOf(nameOrUri: string): number {
    const byUri = this.entries.findIndex(e => e.uri === nameOrUri);
    if (byUri >= 0) return byUri;
    return this.entries.findIndex(e => e.frontmatter.name === nameOrUri);
  }

  /**
   * Loads one file of a listed skill (default its `SKILL.md`), verified by the SDK; refuses (SkillError, naming
   * server, skill and file) a file that fails verification or a skill over the spec's limits.
   */
  async read(nameOrUri: string, ref?: string, signal?: AbortSignal): Promise<LoadedSkillFile> {
    const server = this.host.name();
    const sc = this.skillsClient;
    if (!sc?.supported) throw new SkillError(server, { reason: 'unsupported' });
    const i = this.indexOf(nameOrUri);
    const entry = this.entries[i];
    if (!entry) throw new SkillError(server, { reason: 'unknown', skill: shownName(nameOrUri) });
    const at = { skill: shownName(entry.frontmatter.name), file: shownName(ref ?? 'SKILL.md', 200) };
    if (Array.isArray(entry.resources)) {
      const total = entry.resources.reduce((n, r) => n + r.size, 0);
      if (entry.resources.length > SKILL_LIMITS.files || total > SKILL_LIMITS.bytes) {
        throw new SkillError(server, { reason: 'oversize', ...at, files: entry.resources.length, bytes: total });
      }
    }
    try {
      const f = await sc.read(entry, ref, { timeout: this.host.requestTimeout(), ...(signal ? { signal } : {}) });
      const text = f.text ?? new TextDecoder('utf-8', { fatal: false }).decode(f.bytes);
      return { server, skill: entry.frontmatter.name, uri: f.uri, text, ...(f.body !== undefined ? { body: f.body } : {}), verified: f.verified };
    } catch (err) {
      if (err instanceof SkillVerificationError) {
        const refusal: SkillRefusal = err.reason === 'frontmatter'
          ? { reason: 'frontmatter', ...at, differences: err.differences.slice(0, 5).map(d => shownName(d, 120)) }
          : { reason: err.reason, ...at };
        throw new SkillError(server, refusal, { cause: err });
      }
      if (err instanceof TypeError) throw new SkillError(server, { reason: 'unlisted', ...at, detail: shownName(err.message, 300) }, { cause: err });
      throw new SkillError(server, { reason: 'read', ...at, cause: messageOf(err) }, { cause: err });
    }
  }

  dispose(): void {
    this._onDidChange.dispose();
  }

  private set(entries: Skill[], infos: SkillInfo[]): void {
    const changed = infos.length !== this.infos.length || infos.some((s, i) => s.uri !== this.infos[i]?.uri || s.description !== this.infos[i]?.description);
    this.entries = entries;
    this.infos = infos;
    if (changed) this._onDidChange.fire(infos);
  }
}

function infoOf(s: Skill): SkillInfo {
  const d = String(s.frontmatter.description);
  const chars = Array.from(d);
  const description = chars.length > MAX_SKILL_DESCRIPTION ? `${chars.slice(0, MAX_SKILL_DESCRIPTION - 1).join('')}…` : d;
  return {
    name: String(s.frontmatter.name), description, uri: s.uri,
    ...(Array.isArray(s.resources) ? { files: s.resources.length, bytes: s.resources.reduce((n, r) => n + r.size, 0) } : {}),
  };
}
