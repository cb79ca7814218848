/**
 * MCP Apps in the core (src/mcp/apps): which tools have a view, who may call a tool, the view's resource checked
 * (MIME type, size), and the Content Security Policy built from what the resource declares and nothing more.
 * Against real MCP App servers (server-basic-vanillajs, server-system-monitor) and a hostile fixture.
 */
import * as assert from 'node:assert/strict';
import { McpHost } from '../../src/mcp/host';
import {
  allowAttribute, appCspSources, buildAppCsp, cspSource, injectCsp, loadAppResource, toolUi, visibleToApp, visibleToModel,
} from '../../src/mcp/apps';
import { FAST_STOP, ROOT, nodeFixture, stdio } from '../support/connection';
import * as path from 'node:path';

const appServer = (name: string, pkg: string) => stdio(name, process.execPath, [path.join(ROOT, `node_modules/@modelcontextprotocol/${pkg}/dist/index.js`), '--stdio']);

describe('MCP Apps: tool metadata, view resources and their CSP', function () {
  this.timeout(60_000);
  let host: McpHost;
  before(async () => {
    host = new McpHost({ pingIntervalMs: 0, stopGrace: FAST_STOP });
    await host.reconcile([appServer('basic', 'server-basic-vanillajs'), appServer('sysmon', 'server-system-monitor'), nodeFixture('fx', 'apps-hostile')]);
  });
  after(() => host.shutdown());
  const tool = (server: string, name: string) => host.get(server)!.catalogue.tools.find(t => t.name === name)!;

  it('toolUi: the nested key, the older flat key; never a non-ui:// URI or an over-long one', () => {
    assert.equal(toolUi(tool('basic', 'get-time')), 'ui://get-time/mcp-app.html');
    assert.equal(toolUi(tool('fx', 'flat')), 'ui://fx/good.html');
    assert.equal(toolUi(tool('fx', 'not-ui')), undefined);
    assert.equal(toolUi(tool('fx', 'long-uri')), undefined);
    assert.equal(toolUi(tool('fx', 'app-only')), undefined);
    assert.equal(toolUi(undefined), undefined);
  });

  it('visibility: app-only tools are hidden from the model; anything unreadable means both', () => {
    assert.equal(visibleToModel(tool('sysmon', 'poll-system-stats')), false);
    assert.equal(visibleToApp(tool('sysmon', 'poll-system-stats')), true);
    assert.equal(visibleToModel(tool('sysmon', 'get-system-info')), true);
    assert.equal(visibleToApp(tool('sysmon', 'get-system-info')), true);
    assert.equal(visibleToModel(tool('fx', 'odd-visibility')), true);
    assert.equal(visibleToModel(tool('fx', 'app-only')), false);
  });

  it('the host declares the Apps extension, and a real app server serves its view with the MCP App MIME type', async () => {
    const caps = await host.get('fx')!.callTool('caps', {});
    const said = JSON.parse((caps.content[0] as { text: string }).text);
    assert.deepEqual(said.extensions['io.modelcontextprotocol/ui'], { mimeTypes: ['text/html;profile=mcp-app'] });
    const res = await loadAppResource(host.get('basic')!, 'get-time', 'ui://get-time/mcp-app.html');
    assert.match(res.html, /id="get-time-btn"/);
    assert.deepEqual(res.csp, { connect: [], resource: [], frame: [], baseUri: [], dropped: [] });
    const policy = buildAppCsp(res.csp);
    assert.match(policy, /^default-src 'none'; /);
    for (const d of ["connect-src 'none'", "frame-src 'none'", "base-uri 'none'", "form-action 'none'", "object-src 'none'"]) assert.ok(policy.includes(d), policy);
    assert.doesNotMatch(policy, /https?:|\*/);
  });

  it('declared domains become the only sources; a domain that could end a directive, a wildcard or plain http elsewhere is dropped', async () => {
    const res = await loadAppResource(host.get('fx')!, 'good', 'ui://fx/good.html');
    assert.deepEqual(res.csp.connect, ['https://api.example.com']);
    assert.deepEqual(res.csp.resource, ['https://*.cdn.example.com']);
    assert.deepEqual(res.csp.dropped, ['https://evil.example; script-src *', 'http://plain.example.com', '*']);
    assert.equal(res.permissions.clipboardWrite, true);
    assert.equal(res.permissions.camera, false);
    assert.equal(allowAttribute(res.permissions), 'clipboard-write');
    assert.equal(res.prefersBorder, true);
    const policy = buildAppCsp(res.csp);
    assert.ok(policy.includes('connect-src https://api.example.com;'), policy);
    assert.ok(policy.includes("script-src 'unsafe-inline' data: blob: https://*.cdn.example.com;"), policy);
    assert.doesNotMatch(policy, /evil|plain\.example/);
  });

  it('a view with the wrong MIME type or over the size cap is refused with a message naming server, tool and URI', async () => {
    await assert.rejects(loadAppResource(host.get('fx')!, 'wrong-mime', 'ui://fx/wrong-mime.html'),
      /the view of tool `wrong-mime` on server `fx` \(ui:\/\/fx\/wrong-mime.html\) is not an MCP App: expected MIME type text\/html;profile=mcp-app, got text\/html/);
    await assert.rejects(loadAppResource(host.get('fx')!, 'huge', 'ui://fx/huge.html'), /the view of tool `huge` on server `fx` .* is larger than 8 MiB; not rendered/);
  });

  it('cspSource accepts https/wss origins (a *. label, a port) and loopback http; refuses paths, quotes, schemes and bare hosts', () => {
    for (const ok of ['https://a.example.com', 'https://*.example.com', 'wss://rt.example.com:8443', 'http://localhost:3000', 'http://127.0.0.1']) assert.ok(cspSource(ok), ok);
    for (const bad of ['example.com', 'http://example.com', "https://a.com 'unsafe-eval'", 'https://a.com/path', 'data:', 'https://*', 'javascript:alert(1)', 42, '']) assert.equal(cspSource(bad), undefined, String(bad));
    assert.equal(appCspSources({ connectDomains: Array.from({ length: 40 }, (_, i) => `https://h${i}.example.com`) }).connect.length, 32);
  });

  it('injectCsp puts the policy first, after a doctype, before any script of the view', () => {
    const out = injectCsp('<!DOCTYPE html><html><head><script>1</script>', "default-src 'none'");
    assert.equal(out, `<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><html><head><script>1</script>`);
    assert.ok(injectCsp('<script>1</script>', 'x').startsWith('<meta http-equiv="Content-Security-Policy" content="x">'));
  });
});
