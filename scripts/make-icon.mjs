// Draws media/icon.png (128×128, RGBA) with no image tools: signed-distance shapes, 4×4 supersampling, zlib.
// A rounded square in an indigo→teal gradient carrying a white hub-and-spoke glyph (a host linked to its servers).
//   node scripts/make-icon.mjs [out.png]
import fs from 'node:fs';
import { encodePng } from './png.mjs';

const N = 128;
const out = process.argv[2] ?? 'media/icon.png';

const clamp = (x, a = 0, b = 1) => Math.min(b, Math.max(a, x));
const mix = (a, b, t) => a + (b - a) * t;
/** Distance to a rounded box centred at (cx, cy) with half-size h and corner radius r (negative inside). */
function roundBox(x, y, cx, cy, h, r) {
  const qx = Math.abs(x - cx) - (h - r), qy = Math.abs(y - cy) - (h - r);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
}
const circle = (x, y, cx, cy, r) => Math.hypot(x - cx, y - cy) - r;
/** Distance to a segment of half-width w. */
function segment(x, y, ax, ay, bx, by, w) {
  const px = x - ax, py = y - ay, dx = bx - ax, dy = by - ay;
  const t = clamp((px * dx + py * dy) / (dx * dx + dy * dy));
  return Math.hypot(px - dx * t, py - dy * t) - w;
}

const C = { x: 64, y: 66 };
const sats = [-90, 30, 150].map(a => ({ x: C.x + 36 * Math.cos(a * Math.PI / 180), y: C.y + 36 * Math.sin(a * Math.PI / 180) }));
function glyph(x, y) {
  let d = circle(x, y, C.x, C.y, 13);
  for (const s of sats) {
    d = Math.min(d, segment(x, y, C.x, C.y, s.x, s.y, 3.5));
    d = Math.min(d, circle(x, y, s.x, s.y, 10));
  }
  return d;
}
/** The hole in the hub and the satellites (rings, not discs). */
function holes(x, y) {
  let d = circle(x, y, C.x, C.y, 6);
  for (const s of sats) d = Math.min(d, circle(x, y, s.x, s.y, 4));
  return d;
}

const top = [0x2e, 0x2a, 0x7a], bottom = [0x12, 0x9a, 0xa8];
const S = 4;
const raw = Buffer.alloc(N * (N * 4 + 1));
for (let py = 0; py < N; py++) {
  raw[py * (N * 4 + 1)] = 0; // filter: none
  for (let px = 0; px < N; px++) {
    let r = 0, g = 0, b = 0, a = 0;
    for (let sy = 0; sy < S; sy++) for (let sx = 0; sx < S; sx++) {
      const x = px + (sx + 0.5) / S, y = py + (sy + 0.5) / S;
      if (roundBox(x, y, 64, 64, 62, 26) > 0) continue;
      const t = clamp((x + y) / (2 * N));
      let c = [0, 1, 2].map(i => mix(top[i], bottom[i], t));
      // soft highlight at the top-left
      const hl = clamp(1 - Math.hypot(x - 30, y - 24) / 90) * 0.18;
      c = c.map(v => mix(v, 255, hl));
      if (glyph(x, y) <= 0 && holes(x, y) > 0) c = [255, 255, 255];
      r += c[0]; g += c[1]; b += c[2]; a += 255;
    }
    const n = S * S, o = py * (N * 4 + 1) + 1 + px * 4;
    // colour is the average over covered samples (premultiplied → straight alpha)
    const cov = a / 255;
    raw[o] = cov ? Math.round(r / cov) : 0;
    raw[o + 1] = cov ? Math.round(g / cov) : 0;
    raw[o + 2] = cov ? Math.round(b / cov) : 0;
    raw[o + 3] = Math.round(a / n);
  }
}

const png = encodePng(N, N, 6, raw, { level: 9 });
fs.mkdirSync(new URL('.', `file://${process.cwd()}/${out}`).pathname, { recursive: true });
fs.writeFileSync(out, png);
console.log(`${out}: ${N}x${N} RGBA, ${png.length} bytes`);
