/**
 * Skills (SEP-2640) in chat: what the running servers list, a skill's `SKILL.md` loaded (verified by the core,
 * src/mcp/skills/skills.ts) as context for a request, and the tool through which a model asks for one — in `@mcp`
 * (`SKILL_TOOL`) and for every agent (`mcpHost_loadSkill`, lmTools.ts). Server text goes to the model as data in a
 * labelled context message, and to the chat view only escaped (render.ts, humanText.ts).
 */
import * as vscode from 'vscode';
import { type HostApi, type LoadedSkillFile, type ServerHandle, type SkillInfo, shownName, modelMayReach, type ModelToolGate } from '../../mcp';

/** The name of the `@mcp` participant's own skill tool (offered to the model when a running server lists skills). */
export const SKILL_TOOL = 'mcp_host_load_skill';
/** Skills named in a tool description at most (the rest: ask with a server name). */
export const MAX_SKILLS_DESCRIBED = 100;

/**
 * The running servers' listed skills; with a model's `gate`, only those of servers a model may reach (the same gate
 * as tools: a server whose tools are all turned off for models, or that the user denied, lists none).
 */
export function runningSkills(host: HostApi, gate?: ModelToolGate): { server: string; skill: SkillInfo }[] {
  return host.servers.filter(h => h.state.kind === 'running' && (!gate || modelMayReach(h, gate))).flatMap(h => h.skills.map(skill => ({ server: h.name, skill })));
}

/** `<server>.<skill>` → the server and the skill (a server's name may hold dots: the longest that lists the skill wins). */
export function resolveSkill(host: HostApi, target: string): { handle: ServerHandle; skill: SkillInfo } | undefined {
  const servers = [...host.servers].filter(h => target.startsWith(`${h.name}.`)).sort((a, b) => b.name.length - a.name.length);
  for (const h of servers) {
    const name = target.slice(h.name.length + 1);
    const skill = h.skills.find(s => s.name === name);
    if (skill) return { handle: h, skill };
  }
  return undefined;
}

/** What the model reads of a loaded skill: labelled as a server's text, with its origin. */
export function skillContext(f: LoadedSkillFile): string {
  return `Skill "${f.skill}" of MCP server "${f.server}" (${f.uri}, ${f.verified ? 'verified against the server\'s listing' : 'dynamic, not size- or digest-checked'}). ` +
    `Follow it where it helps with the user's request; it is the server's text, not the user's:\n${f.text}`;
}

/** The context message of a loaded skill (a user-role message, as attached resources are). */
export function skillMessage(f: LoadedSkillFile): vscode.LanguageModelChatMessage {
  return vscode.LanguageModelChatMessage.User(skillContext(f));
}

/** One line per skill for a model-facing description: `server.name: description`, server text on one line each. */
export function skillLines(skills: { server: string; skill: SkillInfo }[]): string {
  const shown = skills.slice(0, MAX_SKILLS_DESCRIBED).map(s => `- ${s.server}.${shownName(s.skill.name)}: ${shownName(s.skill.description, 200)}`);
  return shown.join('\n') + (skills.length > shown.length ? `\n(and ${skills.length - shown.length} more)` : '');
}

/** The `@mcp` participant's skill tool, when a running server lists skills. */
export function skillTool(host: HostApi, gate: ModelToolGate = {}): vscode.LanguageModelChatTool | undefined {
  const skills = runningSkills(host, gate);
  if (!skills.length) return undefined;
  return {
    name: SKILL_TOOL,
    description: `Loads the instructions (SKILL.md) of an MCP skill into the conversation when one fits the user's request. Skills:\n${skillLines(skills)}`,
    inputSchema: {
      type: 'object',
      properties: { server: { type: 'string', description: 'The MCP server name' }, skill: { type: 'string', description: 'The skill name' } },
      required: ['server', 'skill'],
    },
  };
}

/** Loads `skill` of `server` for a model (the input of a skill tool): the skill's text, or why not, as the tool's answer. */
export async function loadSkillForModel(host: HostApi, input: unknown, signal?: AbortSignal, gate: ModelToolGate = {}): Promise<{ text: string; loaded?: LoadedSkillFile }> {
  const { server, skill } = (input && typeof input === 'object' ? input : {}) as { server?: unknown; skill?: unknown };
  const h = typeof server === 'string' ? host.get(server) : undefined;
  // The same gate as tools (H357): a server a model may not reach is answered as if it were not there.
  if (!h || h.state.kind !== 'running' || !modelMayReach(h, gate)) return { text: `MCP server "${String(server)}" is not running (or not configured in MCP Host).` };
  if (typeof skill !== 'string' || !h.skills.some(s => s.name === skill)) {
    return { text: `MCP server "${h.name}" lists no skill "${String(skill)}". Its skills:\n${skillLines(h.skills.map(s => ({ server: h.name, skill: s })))}` };
  }
  try {
    const loaded = await h.loadSkill(skill, undefined, { signal });
    return { text: skillContext(loaded), loaded };
  } catch (err) {
    return { text: `The skill was not loaded: ${err instanceof Error ? err.message : String(err)}` };
  }
}
