/**
 * Tool search (issue 35, H380): what one search of progressive discovery (`mcp_host_search_tools`, ToolDiscovery in
 * src/mcp/catalogue/modelTools.ts) costs on the thread that runs it — the extension host's — when a model repeats it.
 * Two catalogues: (a) 10,000 tools with one-line descriptions, (b) 10,000 tools with 2,000-character descriptions
 * (~20 MB of tool text, the size the issue measured ~0.8 s a search on). For each: the first search (which builds the
 * index), then 30 searches of different words, timed (median, max), and the longest time the thread was held in one
 * slice (the longest gap between turns of a setImmediate ticker running beside the searches, which is what another
 * task on the thread waits at most). Beside it, the same searches done synchronously in one slice (the search as it
 * was before H380, copied here) — the longest slice it held. Reported, not asserted: the unit test H380 checks that
 * the search yields and answers as before; this says how long the slices are on this machine.
 */
import { ToolDiscovery, plainLine, type ModelTool } from '../src/mcp/catalogue/modelTools';
import { median, round, type Bench, type BenchResult } from './lib';

const TOOLS = 10_000;
const SEARCHES = 30;
const TARGET_MS = 50;
const QUERIES = ['read file', 'weather forecast city', 'send mail', 'database query rows', 'image resize', 'calendar event', 'git commit', 'translate text'];

function catalogue(descriptionChars: number): ModelTool[] {
  const topics = ['file', 'weather', 'mail', 'database', 'image', 'calendar', 'git', 'translate', 'search', 'chart'];
  const filler = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore ';
  return Array.from({ length: TOOLS }, (_, i) => {
    const head = `Tool ${i}: works with ${topics[i % topics.length]} and ${topics[(i * 7) % topics.length]} (variant ${i % 97}). `;
    const description = (head + filler.repeat(Math.ceil(descriptionChars / filler.length))).slice(0, Math.max(head.length, descriptionChars));
    return { server: `server${i % 40}`, tool: { name: `${topics[i % topics.length]}_tool_${i}`, description, inputSchema: { type: 'object' as const } } };
  });
}

/** The longest gap between turns of a setImmediate ticker while `fn` runs: the longest slice `fn` held the thread. */
async function longestSlice(fn: () => Promise<unknown>): Promise<{ ms: number; maxSliceMs: number }> {
  let last = performance.now();
  let maxGap = 0;
  let on = true;
  const tick = () => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  const t0 = performance.now();
  await fn();
  const ms = performance.now() - t0;
  on = false;
  await new Promise(setImmediate);
  maxGap = Math.max(maxGap, performance.now() - last);
  return { ms, maxSliceMs: maxGap };
}

/** The search before H380: one synchronous pass (lowercasing every description each time). */
function searchInOneSlice(tools: readonly ModelTool[], query: string): number {
  const words = (s: string) => s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(w => w.length > 0);
  const q = words(query.slice(0, 200)).slice(0, 20);
  const scored: { t: ModelTool; score: number; i: number }[] = [];
  tools.forEach((t, i) => {
    const name = words(`${t.tool.name} ${t.tool.title ?? ''}`);
    const text = `${t.server} ${t.tool.name} ${t.tool.title ?? ''} ${(t.tool.description ?? '').slice(0, 2000)}`.toLowerCase();
    let score = q.length ? 0 : 1;
    for (const w of q) score += name.includes(w) ? 3 : text.includes(w) ? 1 : 0;
    if (score > 0) scored.push({ t, score, i });
  });
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  return scored.slice(0, 10).map(({ t }) => plainLine(t.tool.description)).length;
}

async function one(label: string, tools: ModelTool[], log: (line: string) => void): Promise<BenchResult[]> {
  const mb = tools.reduce((n, t) => n + (t.tool.description?.length ?? 0) + t.tool.name.length, 0) / 1e6;
  const d = new ToolDiscovery();
  const nameOf = (t: ModelTool) => `${t.server}_${t.tool.name}`;
  const first = await longestSlice(() => d.search(tools, QUERIES[0], nameOf));
  const times: number[] = [];
  let maxSlice = first.maxSliceMs;
  for (let i = 0; i < SEARCHES; i++) {
    const r = await longestSlice(() => d.search(tools, `${QUERIES[i % QUERIES.length]} ${i}`, nameOf));
    times.push(r.ms);
    maxSlice = Math.max(maxSlice, r.maxSliceMs);
  }
  const oneSlice: number[] = [];
  for (let i = 0; i < 5; i++) oneSlice.push((await longestSlice(async () => searchInOneSlice(tools, QUERIES[i % QUERIES.length]))).maxSliceMs);
  log(`${label}: ${TOOLS} tools, ${mb.toFixed(1)} MB of names and descriptions; first search (builds the index) ${round(first.ms, 1)} ms, longest slice ${round(first.maxSliceMs, 1)} ms`);
  log(`${label}: ${SEARCHES} more searches: median ${round(median(times), 1)} ms, max ${round(Math.max(...times), 1)} ms; longest slice over all ${round(maxSlice, 1)} ms; the one-slice search (before H380) held the thread up to ${round(Math.max(...oneSlice), 1)} ms (longest of 5)`);
  return [
    { name: `tool search: ${label}, time per search (median of ${SEARCHES}, index built)`, value: round(median(times), 2), unit: 'ms', ratio: null, target: 'report', met: null },
    {
      name: `tool search: ${label}, longest blocking slice (first search and ${SEARCHES} more)`, value: round(maxSlice, 2), unit: 'ms',
      ratio: round(maxSlice / Math.max(...oneSlice)), baseline: 'the same search in one synchronous slice (before H380)',
      target: `≤ ${TARGET_MS} ms`, met: maxSlice <= TARGET_MS,
      note: 'gap between turns of a setImmediate ticker beside the searches; includes any collector pause in it',
    },
  ];
}

export const toolSearch: Bench = {
  id: 'tool-search',
  title: 'tool search (progressive discovery): 10,000 tools, and a ~20 MB catalogue',
  async run(log) {
    return [
      ...await one('10,000 tools', catalogue(80), log),
      ...await one('~20 MB catalogue', catalogue(2000), log),
    ];
  },
};
