/**
 * The side-by-side benchmark against VS Code's own MCP host (issue 41, bench/vsBuiltin.ts): bench/results.json has its
 * rows, each a ratio MCP Host ÷ VS Code with the load it ran at and the VS Code version; and a record of the editor run
 * becomes those rows (a run that could not finish says why, with the rows it did measure).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { rows, type VsBuiltinRecord } from '../../bench/vsBuiltin';

const ROOT = path.resolve(__dirname, '../../..');

/** The rows a finished run has (by the text after "vs-builtin: "). */
const SIDE_BY_SIDE = [
  'server start → every server\'s tools listed in vscode.lm.tools',
  '1,000-tool server: start → its tools listed',
  'longest extension-host block while the 5 servers start and list',
  'vscode.lm.invokeTool latency of the same small tool (echo), median',
  'vscode.lm.invokeTool latency of the same small tool (echo), p99',
  '~31 MB tool result',
  'RSS of the processes each host adds for 3 servers',
  'RSS of the same processes after',
  'crash of one server → its tools work again',
];

describe('Side-by-side benchmark with VS Code\'s own MCP host (issue 41)', () => {
  it('H480: bench/results.json has the side-by-side rows, each with a ratio, the load it ran at and the VS Code version', () => {
    const results = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench/results.json'), 'utf8')) as Record<string, unknown>[];
    const ours = results.filter(r => String(r.name).startsWith('vs-builtin: '));
    for (const what of SIDE_BY_SIDE) {
      const row = ours.find(r => String(r.name).includes(what));
      assert.ok(row, `no "vs-builtin: ${what}…" row in bench/results.json (run: flock /tmp/editor.lock npm run bench -- --only vs-builtin)`);
      assert.equal(typeof row.ratio, 'number', `${row.name}: no ratio`);
      assert.ok(Number.isFinite(row.ratio) && (row.ratio as number) > 0, `${row.name}: ratio ${row.ratio}`);
      assert.match(String(row.load), /^\d+(\.\d+)?(→\d+(\.\d+)?)?$/, `${row.name}: no load`);
      assert.match(String(row.vscodeVersion), /^\d+\.\d+\.\d+/, `${row.name}: no VS Code version`);
      assert.equal(row.met, (row.ratio as number) <= 1.0, `${row.name}: met does not follow the ratio`);
    }
  });

  it('H481: a record of the editor run becomes rows of MCP Host ÷ VS Code, met at ≤ 1.0; an unfinished run says why', () => {
    const start = (allMs: number) => ({ allMs, perServer: { many: allMs / 2 }, maxBlockMs: 10 });
    const record: VsBuiltinRecord = {
      vscode: '1.139.1',
      starts: { mh: [start(900), start(1000), start(1100)], vs: [start(2000), start(2000), start(2000)] },
      latency: { mh: Array.from({ length: 100 }, () => 4), vs: Array.from({ length: 100 }, () => 2) },
      crash: { mh: [{ ms: 300, failedCalls: 2 }], vs: [{ ms: 600, failedCalls: 1 }] },
      done: true,
    };
    const out = rows(record, '2.5→2.5', '2.5');
    const start0 = out.find(r => r.name.includes('every server\'s tools listed'))!;
    assert.equal(start0.ratio, 0.5);
    assert.equal(start0.met, true);
    const echo = out.find(r => r.name.endsWith('(echo), median'))!;
    assert.equal(echo.ratio, 2);
    assert.equal(echo.met, false);
    assert.ok(out.every(r => r.load === '2.5→2.5' && r.vscodeVersion === '1.139.1'));
    assert.ok(!out.some(r => r.name.includes('did not finish')));

    const partial = rows({ vscode: '1.139.1', error: 'timed out waiting for vs servers listed again', progress: ['warm: …'] }, '7.0→7.0', '7');
    assert.equal(partial.length, 1);
    assert.equal(partial[0].met, false);
    assert.match(partial[0].note!, /timed out waiting for vs servers listed again/);
  });
});
