/**
 * `npm run bench [-- --only a,b] [-- --skip c]`: runs the benchmarks in order, prints a table of figures and
 * same-run ratios, and writes bench/results.json (an array of { name, value, unit, ratio, target, met, load }, plus
 * `baseline` and `note`; `load` is the 1-minute load average when the row's bench started → ended). Not tests: nothing here fails a build; a missed target is reported, not thrown.
 * Ids: overhead, throughput, http, http2026, startup, startup-era, catalogue, flood, big, shutdown, activation, bundle, startup-tree, sandbox, cli, block, apps-flood, tool-search, codemode, codemode-tokens, vs-builtin, gateway-hop.
 * `--no-write` leaves bench/results.json alone. A partial run (`--only`, `--skip`) updates only its own rows:
 * the rows it measured replace the file's rows with the same prefix (the text before the first ':', e.g.
 * "big payload", "activation"), in place; every other row is kept as it was.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, fmt, withLoad, type Bench, type BenchResult } from './lib';
import { overhead } from './overhead';
import { throughput } from './throughput';
import { httpBench } from './http';
import { http2026 } from './http2026';
import { startup, startupEra } from './startup';
import { catalogue } from './catalogue';
import { flood } from './flood';
import { big } from './big';
import { shutdown } from './shutdown';
import { activation, bundle, startupTree } from './activation';
import { sandboxStartup } from './sandbox';
import { cliStartup } from './cli';
import { block } from './block';
import { codemode } from './codemode';
import { codemodeTokens } from './codemodeTokens';
import { appsFlood } from './apps';
import { toolSearch } from './search';
import { vsBuiltin } from './vsBuiltin';
import { gatewayHop } from './gatewayHop';

const ALL: Bench[] = [overhead, throughput, httpBench, http2026, startup, startupEra, catalogue, flood, big, shutdown, bundle, activation, startupTree, sandboxStartup, cliStartup, block, appsFlood, toolSearch, codemode, codemodeTokens, vsBuiltin, gatewayHop];

function listArg(name: string): string[] | undefined {
  const argv = process.argv.slice(2);
  const i = argv.findIndex(a => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  const v = argv[i].includes('=') ? argv[i].split('=')[1] : argv[i + 1] ?? '';
  return v.split(',').map(s => s.trim()).filter(Boolean);
}

async function main(): Promise<void> {
  const only = listArg('only');
  const skip = listArg('skip') ?? [];
  const unknown = [...(only ?? []), ...skip].filter(id => !ALL.some(b => b.id === id));
  if (unknown.length) {
    console.error(`unknown bench id(s): ${unknown.join(', ')}; known: ${ALL.map(b => b.id).join(', ')}`);
    process.exit(2);
  }
  const selected = ALL.filter(b => (!only || only.includes(b.id)) && !skip.includes(b.id));
  const results: BenchResult[] = [];
  const t0 = Date.now();
  console.log(`MCP Host benchmarks — node ${process.version}, ${os.cpus().length} CPU(s) (${os.cpus()[0]?.model ?? '?'}), load ${os.loadavg().map(l => l.toFixed(2)).join(' ')}`);
  for (const b of selected) {
    const started = Date.now();
    const loadBefore = os.loadavg()[0];
    const load = () => `${loadBefore.toFixed(1)}→${os.loadavg()[0].toFixed(1)}`;
    console.log(`\n▶ ${b.id}: ${b.title} (load ${loadBefore.toFixed(2)})`);
    try {
      const rows = withLoad(await b.run(line => console.log(`  ${line}`)), loadBefore, os.loadavg()[0]);
      results.push(...rows);
      for (const r of rows) console.log(`  ${r.met === false ? '✗' : r.met ? '✓' : '·'} ${r.name}: ${fmt(r.value)} ${r.unit}${r.ratio !== null ? `, ratio ${fmt(r.ratio)}` : ''} (${r.target})`);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      console.log(`  ✗ ${b.id} failed: ${message}`);
      results.push({ name: `${b.id}: did not run`, value: NaN, unit: '', ratio: null, target: b.title, met: false, note: message, load: load() });
    }
    console.log(`  (${((Date.now() - started) / 1000).toFixed(1)} s, load ${load()})`);
  }
  printTable(results);
  console.log(`\ntotal ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  if (!process.argv.includes('--no-write')) {
    const file = path.join(ROOT, 'bench', 'results.json');
    let json: unknown[] = results.map(r => ({ ...r, value: Number.isFinite(r.value) ? r.value : null }));
    const partial = selected.length < ALL.length;
    if (partial && fs.existsSync(file)) json = mergeRows(JSON.parse(fs.readFileSync(file, 'utf8')) as { name: string }[], json as { name: string }[]);
    fs.writeFileSync(file, JSON.stringify(json, null, 2) + '\n');
    console.log(`wrote ${path.relative(process.cwd(), file)}${partial ? ` (the rows of ${selected.map(b => b.id).join(', ')}; the others kept)` : ''}`);
  }
}

/** `old` with the rows whose prefix (before the first ':') a fresh row has replaced by the fresh rows of that prefix, in place. */
function mergeRows<T extends { name: string }>(old: T[], fresh: T[]): T[] {
  const prefix = (r: T) => r.name.split(':')[0];
  const groups = new Map<string, T[]>();
  for (const r of fresh) groups.set(prefix(r), [...groups.get(prefix(r)) ?? [], r]);
  const out: T[] = [];
  for (const r of old) {
    const group = groups.get(prefix(r));
    if (!group) out.push(r);
    else if (group.length) out.push(...group.splice(0));
  }
  for (const group of groups.values()) out.push(...group);
  return out;
}

function printTable(rows: BenchResult[]): void {
  const head = ['what', 'value', 'unit', 'ratio', 'target', 'met', 'load'];
  const cells = rows.map(r => [r.name, fmt(r.value), r.unit, r.ratio === null ? '—' : fmt(r.ratio), r.target, r.met === null ? '—' : r.met ? 'yes' : 'NO', r.load ?? '—']);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map(c => c[i].length)));
  const line = (c: string[]) => c.map((x, i) => x.padEnd(widths[i])).join(' | ');
  console.log(`\n${line(head)}\n${widths.map(w => '-'.repeat(w)).join('-|-')}`);
  for (const c of cells) console.log(line(c));
}

main().then(
  // Nothing should be left running; exit anyway so a stray handle cannot keep the bench alive.
  () => process.exit(0),
  err => { console.error(err); process.exit(1); },
);
