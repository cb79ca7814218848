/** Trust paragraph, editor-free parts: `"roots": []` means no root; the CLI's root is the configuration's workspace (or --root), never the cwd by accident, never `/`; grants keyed per scope. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from '../../src/cli/args';
import { cliRoots } from '../../src/cli/config';
import { createRuntime } from '../../src/cli/runtime';
import { McpHost } from '../../src/mcp/host';
import { ScopedGrants } from '../../src/extension/trust/grants';
import { FAST_STOP, bin, stdio } from '../support/connection';

function memento(): { get<T>(k: string): T | undefined; update(k: string, v: unknown): Promise<void>; data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return { data, get: <T>(k: string) => data.get(k) as T | undefined, update: async (k, v) => { data.set(k, v); } };
}

describe('Trust: roots and grants', () => {
  it('"roots": [] gives the server no root at all (roots/list answers an empty list); no "roots" = every root', async () => {
    const host = new McpHost({ pingIntervalMs: 0, stopGrace: FAST_STOP });
    try {
      host.setRoots([{ uri: 'file:///work/alpha', name: 'alpha' }]);
      await host.reconcile([stdio('none', bin('mcp-server-everything'), ['stdio'], { roots: [] }), stdio('all', bin('mcp-server-everything'), ['stdio'])]);
      assert.deepEqual(host.rootsFor(host.get('none')!.definition), []);
      const seen = async (n: string) => JSON.stringify((await host.get(n)!.callTool('get-roots-list', {})).content);
      assert.doesNotMatch(await seen('none'), /alpha/);
      assert.match(await seen('all'), /file:\/\/\/work\/alpha/);
    } finally {
      await host.shutdown();
    }
  });

  it('CLI: the root is the configuration\'s workspace folder, or --root; none for a file outside a workspace; never the cwd by accident, never /', () => {
    const ws = path.join(os.tmpdir(), 'proj');
    const elsewhere = path.join(os.tmpdir(), 'somewhere-else');
    assert.deepEqual(cliRoots(path.join(ws, '.vscode', 'mcp.json'), elsewhere).roots, [{ uri: pathToFileURL(ws).href, name: 'proj' }]);
    assert.deepEqual(cliRoots(path.join(ws, 'a.code-workspace'), elsewhere).roots.map(r => r.uri), [pathToFileURL(ws).href]);
    assert.deepEqual(cliRoots(path.join(ws, 'claude_desktop_config.json'), elsewhere).roots, [], 'no workspace, no root (not the cwd)');
    assert.deepEqual(cliRoots(path.join(ws, '.vscode', 'mcp.json'), elsewhere, 'other').roots.map(r => r.uri), [pathToFileURL(path.join(elsewhere, 'other')).href], '--root wins, relative to the cwd');
    const fsRoot = path.parse(process.cwd()).root;
    const atRoot = cliRoots(path.join(fsRoot, '.vscode', 'mcp.json'), fsRoot);
    assert.deepEqual(atRoot.roots, [], 'never the file system root');
    assert.match(atRoot.warning ?? '', /never a workspace root/);
    assert.deepEqual(cliRoots('', elsewhere, fsRoot).roots, [], '--root / is refused too');
    assert.equal(parseArgs(['doctor', '--root', 'x']).root, 'x');
  });

  it('CLI runtime: a host created after loading --config <ws>/.vscode/mcp.json offers <ws>, not the current directory', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'trust-cli-'));
    const ws = path.join(base, 'ws');
    const cwd = path.join(base, 'cwd');
    fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
    fs.mkdirSync(cwd);
    fs.writeFileSync(path.join(ws, '.vscode', 'mcp.json'), JSON.stringify({ servers: { a: { command: 'node', args: ['x.js'] } } }));
    const rt = createRuntime(cwd, {});
    try {
      const cfg = await rt.loadConfig(parseArgs(['doctor', '--config', path.join(ws, '.vscode', 'mcp.json')]));
      assert.deepEqual(cfg.roots?.map(r => r.uri), [pathToFileURL(ws).href]);
      const host = rt.createHost();
      assert.deepEqual(host.roots.map(r => r.uri), [pathToFileURL(ws).href]);
      await host.shutdown();
      await rt.loadConfig(parseArgs(['doctor', '--config', path.join(ws, '.vscode', 'mcp.json'), '--root', path.join(base, 'chosen')]));
      const chosen = rt.createHost();
      assert.deepEqual(chosen.roots.map(r => r.uri), [pathToFileURL(path.join(base, 'chosen')).href]);
      await chosen.shutdown();
    } finally {
      await rt.dispose?.();
      fs.rmSync(base, { recursive: true, force: true });
    }
  });

  it('grants live in the scope of the server\'s definition: a workspace grant is not a user grant, and keys differ per fingerprint', async () => {
    const user = memento();
    const workspace = memento();
    const g = new ScopedGrants({ user, workspace }, 'k');
    await g.record('workspace', 'ws-1:srv:fp1/tool', 'always');
    assert.equal(g.standing('workspace', 'ws-1:srv:fp1/tool'), 'always');
    assert.equal(g.standing('user', 'ws-1:srv:fp1/tool'), undefined, 'kept in the workspace memento only');
    assert.equal(g.standing('workspace', 'ws-1:srv:fp2/tool'), undefined, 'another definition asks again');
    assert.deepEqual(user.data.get('k'), undefined);
    assert.deepEqual(workspace.data.get('k'), ['ws-1:srv:fp1/tool']);
  });
});
