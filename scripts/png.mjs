// A PNG file from raw scanlines, with no image library (after the PNG specification, https://www.w3.org/TR/png/: the
// signature, then chunks IHDR, IDAT, IEND, each its length, type, data and the CRC-32 of its type and data).
// Used by scripts/make-icon.mjs (the extension's icon) and test/fixtures/servers/media.mjs (an image result).
import zlib from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/**
 * The PNG of `width`×`height` 8-bit pixels of `colourType` (2 RGB, 6 RGBA) from `raw`: each scanline is its filter
 * byte followed by its pixels. `deflate` are zlib's options for the IDAT data.
 */
export function encodePng(width, height, colourType, raw, deflate = {}) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0); ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; ihdr[9] = colourType; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0;
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw, deflate)), chunk('IEND', Buffer.alloc(0))]);
}
