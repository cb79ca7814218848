/**
 * The tool budget: which tools go to models at all (per server, per tool: `mcpHost.disabledTools`), and an estimate
 * of what a server's tool definitions cost a model in tokens. Every way a model sees tools (`@mcp`, the language-model
 * tools, the gateway into VS Code's chat) asks `toolEnabled`; the user's own calls (Call Tool…) are not limited.
 * Plain functions, no I/O.
 *
 *   const policy = parseToolPolicy({ files: ['delete_file'], noisy: '*' });
 *   toolEnabled(policy, 'files', 'read_file')   // true
 *   estimateToolTokens(tools)                    // ≈ characters of {name, description, inputSchema} / 4
 */
import type { Tool } from '@modelcontextprotocol/client';

/** Per server: every tool off (`'*'`), or the names of the tools that are off. */
export type ToolPolicy = Readonly<Record<string, '*' | readonly string[]>>;

/** The setting's value as a policy; anything else in it is ignored (the settings schema already says so). */
export function parseToolPolicy(raw: unknown): ToolPolicy {
  const out: Record<string, '*' | string[]> = {};
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return out;
  for (const [server, v] of Object.entries(raw as Record<string, unknown>)) {
    if (v === '*') out[server] = '*';
    else if (Array.isArray(v)) out[server] = v.filter((x): x is string => typeof x === 'string');
  }
  return out;
}

/**
 * The policy of user and workspace settings together (issue 35): a workspace may only turn tools *off* — what either
 * scope turns off is off (`"*"` in either wins; lists are joined), so a workspace never turns back on what the user
 * turned off. (VS Code's own merge of object settings would let the workspace's entry for a server replace the user's.)
 */
export function mergeToolPolicies(user: ToolPolicy, workspace: ToolPolicy): ToolPolicy {
  const out: Record<string, '*' | string[]> = {};
  for (const p of [user, workspace]) {
    for (const [server, off] of Object.entries(p)) {
      const had = Object.prototype.hasOwnProperty.call(out, server) ? out[server] : undefined;
      if (had === '*' || off === '*') out[server] = '*';
      else out[server] = [...new Set([...(had ?? []), ...off])];
    }
  }
  return out;
}

/** Whether `tool` of `server` may go to a model. */
export function toolEnabled(policy: ToolPolicy, server: string, tool: string): boolean {
  const off = Object.prototype.hasOwnProperty.call(policy, server) ? policy[server] : undefined;
  return !(off === '*' || (Array.isArray(off) && off.includes(tool)));
}

/** Whether any tool of `server` may go to a model (the server's switch). */
export function serverToolsEnabled(policy: ToolPolicy, server: string): boolean {
  return !(Object.prototype.hasOwnProperty.call(policy, server) && policy[server] === '*');
}

/**
 * The policy with one switch flipped: a whole server (`tool` undefined) or one tool. Turning a tool on while its
 * server is off turns the server on with every other tool off, so exactly that tool changes.
 */
export function withToolEnabled(policy: ToolPolicy, server: string, tool: string | undefined, on: boolean, allTools: readonly string[] = []): Record<string, '*' | string[]> {
  const out: Record<string, '*' | string[]> = {};
  for (const [k, v] of Object.entries(policy)) out[k] = v === '*' ? '*' : [...v];
  if (tool === undefined) {
    if (on) delete out[server]; else out[server] = '*';
    return out;
  }
  const current = out[server];
  let off = current === '*' ? allTools.filter(t => t !== tool) : [...(current ?? [])];
  off = on ? off.filter(t => t !== tool) : off.includes(tool) ? off : [...off, tool];
  if (off.length) out[server] = off; else delete out[server];
  if (current === '*' && !on) out[server] = '*';
  return out;
}

/** Characters per token assumed by the estimate (JSON-heavy text; models' tokenizers differ). */
export const CHARS_PER_TOKEN = 4;

/** Estimated tokens of the definitions a model is given for `tools` (name, description, input schema). */
export function estimateToolTokens(tools: readonly Pick<Tool, 'name' | 'description' | 'inputSchema'>[]): number {
  let chars = 0;
  for (const t of tools) chars += JSON.stringify({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema }).length;
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** `1234` → `about 1.2k tokens` (words, not `~`: a screen reader says "tilde", and "about ~" read twice). */
export function formatTokens(n: number): string {
  return `about ${n >= 1000 ? `${(n / 1000).toFixed(1)}k` : n} tokens`;
}
