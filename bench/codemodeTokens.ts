/**
 * Code mode's token cost (issue 42): a five-step task against @modelcontextprotocol/server-filesystem on a temporary
 * root — list the files, read three, summarise them, write the summary to one file — done the two ways a model can:
 *   direct: one tool call per step, every server tool's definition in every request; the reads are issued together
 *           (three calls in one response), the model writes the summary itself (the same text the program makes).
 *           Rounds: prompt → list; listing → 3 reads; contents → write; write's result → answer.
 *   program: the one program tool (src/mcp/codemode/codeModeTool.ts); the model asks `describe` for the declarations,
 *           then sends one program that does all five steps; only the summary comes back.
 *           Rounds: prompt → describe; declarations → program; its value → answer.
 * Tokens the model sees = the input of every request (the tool definitions, the user's prompt, every earlier call and
 * tool result, since each request carries the conversation so far), with the tool budget's own estimate (characters
 * / CHARS_PER_TOKEN, src/mcp/catalogue/toolPolicy.ts). The calls are real (the host's callTool, `by: 'model'`, on the
 * real server); the model's own time is not part of the wall time. Target: the program's tokens ≤ 0.5× direct.
 * With MCP_HOST_FIVESTEP_LOG naming a saved output of the editor test H536, its figures are a third row.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { stdio } from '../test/support/connection';
import { CHARS_PER_TOKEN, estimateToolTokens } from '../src/mcp/catalogue/toolPolicy';
import { codeModeServers, codeModeTool, runCodeModeTool } from '../src/mcp/codemode/codeModeTool';
import { DEFAULT_CODE_MODE_LIMITS } from '../src/mcp/codemode/codeModeLimits';
import { programValue } from '../src/mcp/codemode/codeModeResult';
import { fiveStepProgram, summarise } from './fiveStepTask';
import { median, ROOT, round, startHost, type Bench, type BenchResult } from './lib';

const FILESYSTEM = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const TARGET_RATIO = 0.5;
/** Ten files of about 3 KB of source-like text each; the task reads three of them. */
const FILES = 10;
const LINES = 80;
/** Runs of each way (tokens are the same every run; the wall time is their median). */
const ROUNDS = 5;

const tokens = (text: string) => Math.ceil(text.length / CHARS_PER_TOKEN);
const resultText = (r: CallToolResult) => r.content.map(c => (c.type === 'text' ? c.text : JSON.stringify(c))).join('\n');

/** A file holding the output of the editor test H536 (test/editor/codemode.test.ts): its `FIVESTEP_EDITOR {…}` line becomes a row. */
const EDITOR_LOG_ENV = 'MCP_HOST_FIVESTEP_LOG';
interface EditorFigures { directTokens: number; programTokens: number; ratio: number; directMs: number; programMs: number; directRequests: number; programRequests: number }
function editorFigures(): EditorFigures | undefined {
  const file = process.env[EDITOR_LOG_ENV];
  if (!file || !fs.existsSync(file)) return undefined;
  const lines = [...fs.readFileSync(file, 'utf8').matchAll(/FIVESTEP_EDITOR (\{.*\})/g)];
  return lines.length ? JSON.parse(lines[lines.length - 1][1]) as EditorFigures : undefined;
}

export const codemodeTokens: Bench = {
  id: 'codemode-tokens',
  title: 'code mode: tokens the model sees for a five-step task, direct calls vs one program (server-filesystem)',
  async run(log) {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-bench-codemode-')));
    for (let i = 0; i < FILES; i++) {
      const lines = Array.from({ length: LINES }, (_, l) => `export const value${i}_${l} = computeSomething(${l}, "module ${i}") + ${l * 7}; // line ${l}`);
      fs.writeFileSync(path.join(root, `module${i}.ts`), `// module ${i}: generated for the benchmark\n${lines.join('\n')}\n`);
    }
    const h = await startHost([stdio('files', process.execPath, [FILESYSTEM, root])]);
    try {
      const c = h.conn('files');
      const prompt = `List the files in ${root}, read the first three, summarise each in one line (its line count and first line), and write the summary to ${root}/summary.txt.`;

      // Direct: every tool of the server in every request; the conversation grows by each call and result.
      const defs = estimateToolTokens(c.catalogue.tools as Tool[]);
      const directWay = async () => {
        const t0 = performance.now();
        let context = tokens(prompt);
        let seen = 0;
        const request = (callText: string, result: string) => { seen += defs + context; context += tokens(callText) + tokens(result); };
        const listArgs = { path: root };
        const listing = resultText(await c.callTool('list_directory', listArgs, { by: 'model' }));
        request(JSON.stringify({ name: 'list_directory', input: listArgs }), listing);
        const names = [...listing.matchAll(/\[FILE\] (\S+)/g)].map(m => m[1]).sort().slice(0, 3);
        const reads = await Promise.all(names.map(n => c.callTool('read_text_file', { path: path.join(root, n) }, { by: 'model' })));
        const files = names.map((name, i) => ({ name, text: resultText(reads[i]) }));
        request(names.map(n => JSON.stringify({ name: 'read_text_file', input: { path: path.join(root, n) } })).join(''), files.map(f => f.text).join('\n'));
        const summary = summarise(files);
        const writeArgs = { path: path.join(root, 'summary.txt'), content: summary };
        const written = resultText(await c.callTool('write_file', writeArgs, { by: 'model' }));
        request(JSON.stringify({ name: 'write_file', input: writeArgs }), written);
        seen += defs + context; // the last request, answered in words
        return { tokens: seen, ms: performance.now() - t0, summary };
      };

      // One program: the program tool alone; describe, then the program; only its value comes back.
      const servers = codeModeServers(h.host.servers, {});
      const limits = { ...DEFAULT_CODE_MODE_LIMITS, sliceMs: 1_000 };
      const opts = {
        servers, limits, visible: () => true,
        call: async (server: string, tool: Tool, args: Record<string, unknown>, o: { signal: AbortSignal; program: string }) =>
          programValue(server, tool.name, await h.host.get(server)!.callTool(tool.name, args, { signal: o.signal, by: 'model', program: o.program })),
      };
      const programDefs = estimateToolTokens([codeModeTool(servers, () => true, limits)]);
      const source = fiveStepProgram(root);
      const programWay = async () => {
        const t0 = performance.now();
        let context = tokens(prompt);
        let seen = 0;
        const request = (callText: string, result: string) => { seen += programDefs + context; context += tokens(callText) + tokens(result); };
        const describeInput = { describe: ['files/list_directory', 'files/read_text_file', 'files/write_file'] };
        const declarations = await runCodeModeTool(describeInput, opts);
        request(JSON.stringify(describeInput), declarations.text);
        const ran = await runCodeModeTool({ program: source }, opts);
        if (ran.isError) throw new Error(`the program failed: ${ran.text}`);
        request(JSON.stringify({ program: source }), ran.text);
        seen += programDefs + context;
        return { tokens: seen, ms: performance.now() - t0, summary: (JSON.parse(ran.text) as { value: string }).value };
      };

      // The interpreter's first load (once per process) is not part of the task; the two ways alternate, ROUNDS each.
      await runCodeModeTool({ program: 'return 1;' }, opts);
      const d: Awaited<ReturnType<typeof directWay>>[] = [], p: Awaited<ReturnType<typeof programWay>>[] = [];
      for (let i = 0; i < ROUNDS; i++) { d.push(await directWay()); p.push(await programWay()); }
      const direct = d[0].tokens, program = p[0].tokens;
      const directMs = median(d.map(x => x.ms)), programMs = median(p.map(x => x.ms));
      const same = p[0].summary === d[0].summary;
      const ratio = program / direct;
      log(`  direct: ${direct} tokens (${defs} per request of tool definitions), median ${directMs.toFixed(0)} ms of calls`);
      log(`  program: ${program} tokens (${programDefs} per request of tool definitions), median ${programMs.toFixed(0)} ms of calls; ratio ${ratio.toFixed(3)}${same ? '' : ' (summaries differ)'}`);
      const out: BenchResult[] = [
        {
          name: 'codemode-tokens: five-step task, tokens the model sees (one program)', value: program, unit: 'tokens', ratio: round(ratio, 3),
          baseline: 'the same task by direct tool calls', target: `ratio ≤ ${TARGET_RATIO}`, met: ratio <= TARGET_RATIO,
          note: `direct ${direct} tokens in 4 requests (${defs} tokens of tool definitions each); program ${program} in 3 (${programDefs} each); ${FILES} files of ${LINES + 1} lines, 3 read; estimate: characters / ${CHARS_PER_TOKEN}`,
        },
        {
          name: 'codemode-tokens: five-step task, wall time of the calls (one program)', value: round(programMs, 1), unit: 'ms', ratio: round(programMs / directMs, 3),
          baseline: 'the same task by direct tool calls (no model time on either side)', target: 'report', met: null,
          note: `median of ${ROUNDS}, interleaved; direct ${round(directMs, 1)} ms; the program's time includes describe (the interpreter already loaded); reads in parallel both ways`,
        },
      ];
      const editor = editorFigures();
      if (editor) {
        out.push({
          name: 'codemode-tokens: five-step task in the editor, tokens the model sees (one program)', value: editor.programTokens, unit: 'tokens', ratio: editor.ratio,
          baseline: 'the same task by direct @mcp tool calls (scripted fake model, production VSIX)', target: `ratio ≤ ${TARGET_RATIO}`, met: editor.ratio <= TARGET_RATIO,
          note: `from ${process.env[EDITOR_LOG_ENV]} (test H536): direct ${editor.directTokens} tokens in ${editor.directRequests} requests, ${editor.directMs} ms; program ${editor.programTokens} in ${editor.programRequests}, ${editor.programMs} ms`,
        });
      }
      return out;
    } finally {
      await h.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
};
