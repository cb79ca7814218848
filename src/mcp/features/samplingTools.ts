/**
 * Sampling with tools (MCP 2025-11-25, `sampling: { tools: {} }`), the editor-free part:
 * - `offeredTools`: the request's `tools` under names a language model accepts (`[a-zA-Z0-9_-]`, at
 *   most 64 characters, unique), with the way back to the server's names, and the tool mode
 *   (`toolChoice`: auto, required, none — none offers nothing);
 * - `checkToolUses`: the model's answer may only call tools that were offered; tool_use blocks are
 *   the answer's last blocks and the stop reason is `toolUse`.
 */
/** The part of a `sampling/createMessage` request these read (any SDK's params type fits). */
interface Params {
  tools?: readonly { name: string; description?: string; title?: string; inputSchema?: object }[];
  toolChoice?: { mode?: string };
}

/** A tool as offered to the language model. */
export interface ModelTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface OfferedTools {
  tools: ModelTool[];
  /** Model name → the server's tool name. */
  serverName: Map<string, string>;
  mode: 'auto' | 'required';
}

const MAX_MODEL_TOOL_NAME = 64;

/** The request's tools as the model sees them; undefined when none are offered (no tools, or toolChoice none). */
export function offeredTools(params: Params): OfferedTools | undefined {
  const p = params;
  if (!Array.isArray(p.tools) || !p.tools.length || p.toolChoice?.mode === 'none') return undefined;
  const serverName = new Map<string, string>();
  const tools: ModelTool[] = [];
  for (const t of p.tools) {
    const base = t.name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, MAX_MODEL_TOOL_NAME) || 'tool';
    let name = base;
    for (let n = 2; serverName.has(name); n++) name = `${base.slice(0, MAX_MODEL_TOOL_NAME - `_${n}`.length)}_${n}`;
    serverName.set(name, t.name);
    tools.push({ name, description: t.description ?? t.title ?? t.name, inputSchema: (t.inputSchema ?? { type: 'object' }) as Record<string, unknown> });
  }
  return { tools, serverName, mode: p.toolChoice?.mode === 'required' ? 'required' : 'auto' };
}

/** The sampling tools of a request, for the confirmation dialog: `name` per tool, and the tool choice. */
export function describeOfferedTools(params: Params): string | undefined {
  const p = params;
  if (!Array.isArray(p.tools) || !p.tools.length) return undefined;
  return `Tools offered to the model: ${p.tools.map(t => t.name).join(', ')} (tool choice: ${p.toolChoice?.mode ?? 'auto'}; the model's tool calls go back to the server, the host runs none)`;
}

type Block = { type?: unknown; name?: unknown };

/**
 * Why a sampling result may not go back to the server, or undefined when it may: a tool_use block
 * when no tool was offered, or one naming a tool that was not offered.
 */
export function checkToolUses(params: Params, result: { content?: unknown }): string | undefined {
  const blocks = (Array.isArray(result.content) ? result.content : [result.content]) as Block[];
  const uses = blocks.filter(b => b && typeof b === 'object' && b.type === 'tool_use');
  if (!uses.length) return undefined;
  const offered = offeredTools(params);
  if (!offered) return 'the model called a tool, but the request offered none';
  const names = new Set(offered.serverName.values());
  const bad = uses.find(u => typeof u.name !== 'string' || !names.has(u.name));
  return bad ? `the model called the tool ${JSON.stringify(bad.name)}, which the request did not offer` : undefined;
}
