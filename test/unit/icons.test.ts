import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import {
  IconStore, MAX_ICON_BYTES, MAX_REMOTE_ICONS_PER_SERVER, chooseIcon, iconSource, iconsOf, type IconSpec,
} from '../../src/mcp/catalogue/icons';
import type { FetchLike } from '../../src/mcp/http/fetch';

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect width="16" height="16"/></svg>';
const pngData = `data:image/png;base64,${PNG.toString('base64')}`;

describe('icons: which icon, from where', () => {
  it('picks per theme (that theme, else none, else the other), scalable first, else closest to 32 px', () => {
    const icons: IconSpec[] = [
      { src: 'a', sizes: ['16x16'] }, { src: 'b', sizes: ['48x48'] }, { src: 'c', sizes: ['32x32'], theme: 'dark' },
      { src: 'd', mimeType: 'image/svg+xml', theme: 'light' }, { src: 'e', sizes: ['8x8'] },
    ];
    assert.equal(chooseIcon(icons, 'light')?.src, 'd');
    assert.equal(chooseIcon(icons, 'dark')?.src, 'c');
    assert.equal(chooseIcon(icons.filter(i => !i.theme), 'dark')?.src, 'b', '48 beats 16 (scaling down looks better); 8 is too small');
    assert.equal(chooseIcon([{ src: 'x', theme: 'dark' }], 'light')?.src, 'x', 'the other theme\'s icon rather than none');
    assert.equal(chooseIcon(icons, 'light', i => i.src !== 'd')?.src, 'b');
    assert.equal(chooseIcon([], 'light'), undefined);
    assert.deepEqual(iconsOf({ icons: [{ src: 'a' }, { nope: 1 }, 'x', null] }), [{ src: 'a' }]);
    assert.deepEqual(iconsOf({ icons: 'no' }), []);
  });

  it('data: images of the five types are decoded; other types, oversized and malformed ones are refused', () => {
    const png = iconSource({ src: pngData }, undefined);
    assert.ok(png.kind === 'data' && png.mimeType === 'image/png' && png.bytes.equals(PNG));
    const svg = iconSource({ src: `data:image/svg+xml,${encodeURIComponent(SVG)}` }, undefined);
    assert.ok(svg.kind === 'data' && svg.bytes.toString() === SVG, 'a percent-encoded svg');
    for (const t of ['image/jpeg', 'image/webp', 'image/gif']) assert.equal(iconSource({ src: `data:${t};base64,AAAA` }, undefined).kind, 'data', t);
    for (const [src, why] of [
      ['data:text/html;base64,PGI+', /`text\/html` is not an image type/],
      ['data:image/bmp;base64,AAAA', /`image\/bmp`/],
      [`data:image/png;base64,${Buffer.alloc(MAX_ICON_BYTES + 1).toString('base64')}`, /over 262144 bytes/],
      ['data:image/png;base64', /malformed/],
      ['data:image/svg+xml,%E0%A4%A', /does not decode/],
    ] as const) {
      const r = iconSource({ src }, undefined);
      assert.ok(r.kind === 'refused' && why.test(r.reason), `${src.slice(0, 40)}: ${JSON.stringify(r).slice(0, 200)}`);
    }
  });

  it('https icons only on an HTTP server\'s own origin; never for stdio servers; never http, file or javascript', () => {
    assert.deepEqual(iconSource({ src: 'https://mcp.example.com/i.png' }, 'https://mcp.example.com/mcp'), { kind: 'remote', url: 'https://mcp.example.com/i.png' });
    for (const [src, server, why] of [
      ['https://mcp.example.com/i.png', undefined, /stdio server's remote icons are not fetched/],
      ['https://evil.example.net/i.png', 'https://mcp.example.com/mcp', /not on the server's origin \(https:\/\/mcp\.example\.com\)/],
      ['https://mcp.example.com:8443/i.png', 'https://mcp.example.com/mcp', /not on the server's origin/],
      ['http://mcp.example.com/i.png', 'http://mcp.example.com/mcp', /`http:` icons are not loaded/],
      ['file:///etc/passwd', 'https://mcp.example.com/mcp', /`file:`/],
      ['javascript:alert(1)', 'https://mcp.example.com/mcp', /`javascript:`/],
      ['https://u:p@mcp.example.com/i.png', 'https://mcp.example.com/mcp', /credentials/],
    ] as const) {
      const r = iconSource({ src }, server);
      assert.ok(r.kind === 'refused' && why.test(r.reason), `${src}: ${JSON.stringify(r)}`);
    }
  });
});

function headersOf(h: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(h).forEach((v, k) => { out[k] = v; });
  return out;
}

describe('icons: the on-disk cache and the guarded fetch (real HTTPS server on 127.0.0.1)', function () {
  this.timeout(20000);
  let dir: string;
  let server: https.Server;
  let ca: Buffer;
  let origin: string;
  const requests: string[] = [];
  /** fetch over node:https trusting the test's own certificate (the product uses the global fetch). */
  const httpsFetch: FetchLike = (url, init) => new Promise((resolve, reject) => {
    const req = https.request(String(url), { method: init?.method ?? 'GET', ca, signal: init?.signal ?? undefined, headers: headersOf(init?.headers) }, res => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
      resolve(new Response(Readable.toWeb(res) as ReadableStream, { status: res.statusCode, headers }));
    });
    req.on('error', reject);
    req.end();
  });

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-icons-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
      '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    ca = fs.readFileSync(path.join(dir, 'cert.pem'));
    server = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert: ca }, (req, res) => {
      requests.push(req.url ?? '');
      if (req.url === '/icon.png' || /^\/(i\d+|one-more)\.png$/.test(req.url ?? '')) { res.writeHead(200, { 'content-type': 'image/png' }).end(PNG); return; }
      if (req.url === '/big.png') { res.writeHead(200, { 'content-type': 'image/png' }); res.end(Buffer.alloc(MAX_ICON_BYTES * 2)); return; }
      if (req.url === '/page.png') { res.writeHead(200, { 'content-type': 'text/html' }).end('<script>'); return; }
      if (req.url === '/away.png') { res.writeHead(302, { location: 'https://127.0.0.2/icon.png' }).end(); return; }
      if (req.url === '/moved.png') { res.writeHead(302, { location: '/icon.png' }).end(); return; }
      res.writeHead(404).end();
    });
    await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
    origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    await new Promise(r => server.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes a data icon to the cache, once', async () => {
    const store = new IconStore(path.join(dir, 'cache1'));
    const r = await store.file('s', { src: pngData }, undefined);
    assert.ok('file' in r && r.file.endsWith('.png') && fs.readFileSync(r.file).equals(PNG), JSON.stringify(r));
    assert.deepEqual(await store.file('s', { src: pngData }, undefined), r);
  });

  it('fetches a same-origin icon once (cached on disk across stores), follows same-origin redirects only', async () => {
    const cache = path.join(dir, 'cache2');
    const store = new IconStore(cache, httpsFetch);
    const before = requests.length;
    const r = await store.file('s', { src: `${origin}/icon.png` }, `${origin}/mcp`);
    assert.ok('file' in r && fs.readFileSync(r.file).equals(PNG), JSON.stringify(r));
    assert.deepEqual(await new IconStore(cache, httpsFetch).file('s', { src: `${origin}/icon.png` }, `${origin}/mcp`), r, 'the disk cache answers');
    assert.deepEqual(requests.slice(before), ['/icon.png'], 'one request in all');
    const moved = await store.file('s', { src: `${origin}/moved.png` }, `${origin}/mcp`);
    assert.ok('file' in moved, JSON.stringify(moved));
    const away = await store.file('s', { src: `${origin}/away.png` }, `${origin}/mcp`);
    assert.ok('error' in away, 'a redirect to another origin is not followed');
  });

  it('refuses oversized bodies, non-image content types and other origins (no request is made for those)', async () => {
    const store = new IconStore(path.join(dir, 'cache3'), httpsFetch);
    const big = await store.file('s', { src: `${origin}/big.png` }, `${origin}/mcp`);
    assert.ok('error' in big && /262144|maxMessageBytes|too large|limit/i.test(big.error), JSON.stringify(big));
    const page = await store.file('s', { src: `${origin}/page.png` }, `${origin}/mcp`);
    assert.ok('error' in page && /`text\/html` is not an image type/.test(page.error), JSON.stringify(page));
    const before = requests.length;
    const other = await store.file('s', { src: `${origin}/icon.png` }, 'https://127.0.0.1:1/mcp');
    assert.ok('error' in other && /not on the server's origin/.test(other.error));
    const stdio = await store.file('s', { src: `${origin}/icon.png` }, undefined);
    assert.ok('error' in stdio && /stdio/.test(stdio.error));
    assert.equal(requests.length, before);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'cache3')), [], 'nothing cached');
  });

  it('fetches at most MAX_REMOTE_ICONS_PER_SERVER distinct remote icons per server', async () => {
    const store = new IconStore(path.join(dir, 'cache4'), httpsFetch);
    for (let i = 0; i < MAX_REMOTE_ICONS_PER_SERVER; i++) assert.ok('file' in await store.file('s', { src: `${origin}/i${i}.png` }, `${origin}/mcp`));
    const over = await store.file('s', { src: `${origin}/one-more.png` }, `${origin}/mcp`);
    assert.ok('error' in over && /more than 100 remote icons/.test(over.error));
    assert.ok('file' in await store.file('t', { src: `${origin}/one-more.png` }, `${origin}/mcp`), 'another server has its own budget');
  });
});
