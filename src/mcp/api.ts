/**
 * The interfaces the editor and the CLI program against. `McpHost` (host.ts) implements `HostApi`;
 * each of its connections implements `ServerHandle`. Keep this file the single contract between
 * the core and its users: add members here first.
 */
import type {
  CallToolResult, GetPromptResult, ReadResourceResult, CompleteResult, LoggingLevel,
  Resource, ListResourcesResult,
} from '@modelcontextprotocol/client';
import type { Event, Disposable } from './events';
import type { Catalogue, LogEntry, Root, ServerDefinition, ServerState, ConfigError } from './types';
import type { Redactor } from './logging/redact';
import type { TaskInfo, TaskMode } from './tasks/tasks';
import type { CatalogueKind } from './catalogue/paging';
import type { HistoryEntry, HistoryOrigin, StoredHistory } from './server/history';
import type { SandboxDenial } from './launch/sandboxPolicy';
import type { LoadedSkillFile, SkillInfo } from './skills/skills';

/** Options every request accepts. */
export interface RequestOptions {
  /** Cancels the request (sends notifications/cancelled). */
  signal?: AbortSignal;
  /** Overrides the server's request timeout (ms). Progress notifications reset it. */
  timeout?: number;
  /** Called for each progress notification; asking for it sends a progress token. */
  onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
  /**
   * Tool calls: how a tool whose `execution.taskSupport` is `optional` runs: `auto` (default: as a task only
   * when it is known long-running, tasks.ts), `task`, or `plain`. A `required` tool always runs as a task.
   */
  task?: TaskMode;
  /** Tool calls run as a task: every change of the task (created, status, message), as it happens. */
  onTask?: (task: TaskInfo) => void;
  /** Tool calls: the user started this one (a command, the CLI), not a model. Shown with the task. */
  userStarted?: boolean;
  /** Who asked, for the history (tools/call, prompts/get, resources/read): default the user. */
  by?: HistoryOrigin;
  /** Tool calls: the code-mode program that made this call (its id), shown with the history entry. */
  program?: string;
}

export interface ServerHandle {
  readonly name: string;
  readonly definition: ServerDefinition;
  readonly state: ServerState;
  /** Cached catalogue (empty lists until running). */
  readonly catalogue: Catalogue;
  /** True while `catalogue` is the last known one (a cache seeded by the host's owner), not the server's answer. */
  readonly catalogueStale: boolean;
  /** Shows `c` as the catalogue until the server answers (the editor's cache of the last session); undefined clears it. */
  seedCatalogue(c: Catalogue | undefined): void;
  /** Fetches the lists again (all declared ones, or one kind), as a list_changed would; resolves when done. */
  refreshCatalogue(kind?: CatalogueKind): Promise<void>;
  /** Last stderr lines (at most 50), kept across restarts for error reports. */
  readonly stderrTail: readonly string[];
  /**
   * This server's part of the one redaction path (redact.ts): what the host shows of the server or its
   * definition (tooltips, CLI lines, URLs) passes it first. Log entries, error states and stderr already did.
   */
  readonly redactor: Redactor;
  /** True when the server's process runs in the OS sandbox (launch/sandboxLaunch.ts): the shield in views and `doctor`. */
  readonly sandboxed: boolean;
  /** Each thing the OS sandbox refused this server (also logged, source `sandbox`). */
  readonly onDidDenyInSandbox: Event<SandboxDenial>;

  readonly onDidChangeState: Event<ServerState>;
  readonly onDidChangeCatalogue: Event<Catalogue>;
  /** `notifications/resources/updated` for a subscribed URI. */
  readonly onDidUpdateResource: Event<string>;

  /** The skills the running server lists (SEP-2640, skills/skills.ts): names and descriptions; no file read yet. */
  readonly skills: readonly SkillInfo[];
  readonly onDidChangeSkills: Event<readonly SkillInfo[]>;
  /**
   * Loads a listed skill's `SKILL.md` (or the file `ref` of it), starting the server on first use; each file is
   * verified against the server's entry (size, digest, frontmatter) and refused with a SkillError naming server,
   * skill and file when it does not match.
   */
  loadSkill(nameOrUri: string, ref?: string, opts?: RequestOptions): Promise<LoadedSkillFile>;

  /** Every tool call, prompt and resource read made through this handle (the last MAX_HISTORY), newest last. */
  readonly history: readonly HistoryEntry[];
  readonly onDidChangeHistory: Event<HistoryEntry>;
  /** The history as kept across reloads: ended entries, every text through this server's redaction path (history.ts). */
  storedHistory(redactor?: Redactor): StoredHistory;
  /** Puts entries kept from an earlier window (`storedHistory()` then) before the current ones; ignores anything malformed. */
  restoreHistory(stored: unknown): void;

  /** Tool calls of this session that run as MCP tasks: running first, then the last finished ones. */
  readonly tasks: readonly TaskInfo[];
  readonly onDidChangeTasks: Event<TaskInfo>;
  /** Cancels a running task (tasks/cancel); its caller's wait rejects at once. */
  cancelTask(taskId: string): Promise<void>;
  /** A task's tool result (checked like any tool result): at once when it ended, else when it ends. */
  taskResult(taskId: string): Promise<CallToolResult>;

  /** Starts (no-op when starting/running). Resolves when running; rejects with a readable error. */
  start(): Promise<void>;
  /** Graceful stop of the whole process tree / HTTP session. */
  stop(): Promise<void>;
  restart(): Promise<void>;

  /** Validates `args` against the tool's inputSchema (ajv) first; validates structuredContent against outputSchema. */
  callTool(tool: string, args: Record<string, unknown>, opts?: RequestOptions): Promise<CallToolResult>;
  getPrompt(prompt: string, args: Record<string, string>, opts?: RequestOptions): Promise<GetPromptResult>;
  readResource(uri: string, opts?: RequestOptions): Promise<ReadResourceResult>;
  /** One page of resources/list (for lazy UIs); the catalogue holds every page. */
  listResourcesPage(cursor?: string, opts?: RequestOptions): Promise<ListResourcesResult>;
  /** completion/complete for a prompt argument or a template variable (values capped at 100). */
  complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    context?: Record<string, string>,
    opts?: RequestOptions,
  ): Promise<CompleteResult['completion']>;
  subscribe(uri: string): Promise<void>;
  unsubscribe(uri: string): Promise<void>;
  /** Sends logging/setLevel when the server declared `logging`; otherwise a no-op. */
  setLogLevel(level: LoggingLevel): Promise<void>;
  ping(opts?: RequestOptions): Promise<void>;
  /** Turn the JSON-RPC trace (LogEntry source 'trace') on or off, live. */
  setTrace(on: boolean): void;
}

export interface HostApi extends Disposable {
  readonly servers: readonly ServerHandle[];
  get(name: string): ServerHandle | undefined;
  /** Start added, restart changed, stop removed; unchanged sessions are left alone. Errors are per server. */
  reconcile(definitions: ServerDefinition[], errors?: ConfigError[]): Promise<void>;
  /** Replace the roots; running servers that declared nothing special get roots/list_changed. */
  setRoots(roots: Root[]): void;
  readonly roots: readonly Root[];
  /** The roots one server is sent (`roots/list`; a sandboxed server's write boundary): its `roots` names applied. */
  rootsFor(def: ServerDefinition): Root[];

  readonly onDidChangeServers: Event<void>;
  readonly onDidChangeState: Event<{ server: string; state: ServerState }>;
  readonly onDidChangeCatalogue: Event<{ server: string; catalogue: Catalogue }>;
  readonly onDidUpdateResource: Event<{ server: string; uri: string }>;
  /** Any server's list of skills changed. */
  readonly onDidChangeSkills: Event<{ server: string; skills: readonly SkillInfo[] }>;
  /** Any task change of any server (TaskInfo names its server). */
  readonly onDidChangeTasks: Event<TaskInfo>;
  /**
   * Any History change of any server (an entry added, ended or restored; HistoryEntry names its server), for every
   * connection the server has had: a view that listens here follows a server through reconciles.
   */
  readonly onDidChangeHistory: Event<HistoryEntry>;
  readonly onLog: Event<LogEntry>;

  /** Stops every server (whole process trees) and waits until they are gone. */
  shutdown(): Promise<void>;
}

export type { Resource };
