/**
 * MCP Apps, what a view hands over or reads (src/mcp/apps/files.ts): a `ui/download-file` name made safe (no path
 * parts, control, format or bidi characters, reserved names; cut with its extension kept), its contents decoded and
 * bounded; which resource URIs a view may read from its own server and which are refused.
 */
import * as assert from 'node:assert/strict';
import { downloadItems, MAX_DOWNLOAD_ITEMS, MAX_DOWNLOAD_NAME_CHARS, MAX_VIEW_FILE_CHARS, safeFileName, viewReadRefusal } from '../../src/mcp/apps';

describe('MCP Apps: files from views and resource reads by views (H132, H133)', () => {
  it('H132: a well-behaved name is kept as it is', () => {
    assert.equal(safeFileName('report 2026.pdf'), 'report 2026.pdf');
    assert.equal(safeFileName('file:///tmp/out/notes.txt'), 'notes.txt');
    assert.equal(safeFileName('ui://pdf/paper.pdf?page=3#x'), 'paper.pdf');
  });

  it('H132: path parts, backslashes, newlines, bidi overrides, zero-width and reserved names never survive', () => {
    assert.equal(safeFileName('../../.ssh/authorized_keys'), 'authorized_keys');
    assert.equal(safeFileName('..\\..\\Windows\\System32\\evil.dll'), 'evil.dll');
    assert.equal(safeFileName('..%2F..%2Fetc%2Fpasswd'), 'passwd');
    assert.equal(safeFileName('invoice\n\r.pdf'), 'invoice.pdf');
    assert.equal(safeFileName('invoice\u202Efdp.exe'), 'invoicefdp.exe', 'a right-to-left override cannot disguise the extension');
    assert.equal(safeFileName('a\u200Bb\u2066c\u2069\u0000d.txt'), 'abcd.txt');
    assert.equal(safeFileName('CON.txt'), '_CON.txt');
    assert.equal(safeFileName('what?<is>:"this"|*.txt'), 'what__is___this___.txt');
    assert.equal(safeFileName('...'), 'download');
    assert.equal(safeFileName('.bashrc'), 'bashrc');
    assert.equal(safeFileName(''), 'download');
    assert.equal(safeFileName(42), 'download');
    const long = safeFileName(`${'x'.repeat(500)}.pdf`);
    assert.equal(Array.from(long).length, MAX_DOWNLOAD_NAME_CHARS);
    assert.ok(long.endsWith('.pdf'));
  });

  it('H132: contents are decoded and bounded; malformed requests are refused', () => {
    const [a, b] = downloadItems([
      { type: 'resource', resource: { uri: 'file:///x/../../a.txt', mimeType: 'text/plain', text: 'hello' } },
      { type: 'resource', resource: { uri: 'ui://x/b.bin', mimeType: 'evil\ntype/x', blob: Buffer.from([1, 2, 3]).toString('base64') } },
    ]);
    assert.deepEqual({ name: a.name, mimeType: a.mimeType, size: a.size, text: Buffer.from(a.bytes!).toString() }, { name: 'a.txt', mimeType: 'text/plain', size: 5, text: 'hello' });
    assert.deepEqual({ name: b.name, mimeType: b.mimeType, bytes: [...b.bytes!] }, { name: 'b.bin', mimeType: undefined, bytes: [1, 2, 3] });
    const [link] = downloadItems([{ type: 'resource_link', uri: 'doc://x/1', name: '../secret\u202E.txt', size: 12 }]);
    assert.deepEqual(link, { name: 'secret.txt', mimeType: undefined, link: 'doc://x/1', size: 12 });
    assert.throws(() => downloadItems([]), /no contents/);
    assert.throws(() => downloadItems(Array(MAX_DOWNLOAD_ITEMS + 1).fill({ type: 'resource', resource: { uri: 'a', text: '' } })), /at most/);
    assert.throws(() => downloadItems([{ type: 'resource', resource: { uri: 'a', text: 'x'.repeat(MAX_VIEW_FILE_CHARS + 1) } }]), /over 4 MiB/);
    assert.throws(() => downloadItems([{ type: 'resource', resource: { uri: 'a', blob: '!!not base64!!' } }]), /not valid base64/);
    assert.throws(() => downloadItems([{ type: 'text', text: 'x' }]), /neither/);
  });

  it("H133: a view reads what its server lists and its schemes; another server's URI and unlisted schemes are refused", () => {
    const own = { resources: [{ uri: 'doc://own/a' }], resourceTemplates: [{ uriTemplate: 'pdf://{id}' }] };
    const other = { resources: [{ uri: 'file:///secret' }, { uri: 'doc://own/shared' }], resourceTemplates: [] };
    assert.equal(viewReadRefusal('doc://own/a', own, [other]), undefined);
    assert.equal(viewReadRefusal('doc://own/b', own, [other]), undefined, 'a scheme its server lists');
    assert.equal(viewReadRefusal('pdf://42', own, [other]), undefined, 'a scheme of its templates');
    assert.equal(viewReadRefusal('ui://own/view.html', own, [other]), undefined);
    assert.match(viewReadRefusal('file:///secret', own, [other])!, /another server/);
    assert.match(viewReadRefusal('doc://own/shared', own, [other])!, /another server/);
    assert.match(viewReadRefusal('file:///etc/passwd', own, [other])!, /no resource of scheme "file:"/);
    assert.match(viewReadRefusal('https://example.com/', own, [other])!, /scheme "https:"/);
    assert.match(viewReadRefusal('not a uri', own, [])!, /not a URI/);
    assert.match(viewReadRefusal(`doc://${'a'.repeat(3000)}`, own, [])!, /longer than/);
    assert.match(viewReadRefusal(undefined, own, [])!, /without a URI/);
  });
});
