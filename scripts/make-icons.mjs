#!/usr/bin/env node
// Draws the app's icons (the Meridian "M") as PNGs, with Node alone (zlib):
//   app/assets/icon.png            1024×1024, opaque (iOS refuses transparency): white M on blue
//   app/assets/adaptive-icon.png   1024×1024 Android adaptive foreground: white M inside the safe zone, transparent
//   app/assets/splash-icon.png     1024×1024 splash image: blue M, transparent (dark: light blue M)
//   app/assets/favicon.png         48×48 for the web
// Run: node scripts/make-icons.mjs (the output is committed; rerun after changing the shapes).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';

const ROOT = join(import.meta.dirname, '..');
const BLUE = [0x1d, 0x4e, 0xd8, 255]; // the light theme's primary
const WHITE = [255, 255, 255, 255];
const LIGHT_BLUE = [0x93, 0xc5, 0xfd, 255]; // the dark theme's primary, for the dark splash

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
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
/** RGBA pixels (Uint8Array, size*size*4) to a PNG file. */
function png(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    rows[y * (size * 4 + 1)] = 0; // filter: none
    Buffer.from(rgba.buffer, y * size * 4, size * 4).copy(rows, y * (size * 4 + 1) + 1);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The M as convex polygons in a unit box (0..1): two stems and two diagonals meeting low in the middle. */
const T = 0.2; // stroke
const V = 0.64; // where the diagonals meet
const M_SHAPES = [
  [[0, 0], [T, 0], [T, 1], [0, 1]],
  [[1 - T, 0], [1, 0], [1, 1], [1 - T, 1]],
  [[0, 0], [T, 0], [0.5 + T / 2, V], [0.5 - T / 2, V]],
  [[1 - T, 0], [1, 0], [0.5 + T / 2, V], [0.5 - T / 2, V]],
];

function insideConvex(poly, x, y) {
  let sign = 0;
  for (let i = 0; i < poly.length; i++) {
    const [x1, y1] = poly[i];
    const [x2, y2] = poly[(i + 1) % poly.length];
    const cross = (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1);
    if (cross !== 0) {
      const s = Math.sign(cross);
      if (sign === 0) sign = s;
      else if (s !== sign) return false;
    }
  }
  return true;
}

/** Draws an icon: background (or transparent), the M of `markSize` (fraction of the side) in `markColor`. */
function draw(size, { background, markColor, markSize }) {
  const rgba = new Uint8Array(size * size * 4);
  const box = markSize * size;
  const left = (size - box) / 2;
  const top = (size - box) / 2;
  const SS = 4; // supersampling per axis: smooth edges
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let hits = 0;
      for (let sy = 0; sy < SS; sy++) {
        for (let sx = 0; sx < SS; sx++) {
          const u = (x + (sx + 0.5) / SS - left) / box;
          const v = (y + (sy + 0.5) / SS - top) / box;
          if (u >= 0 && u <= 1 && v >= 0 && v <= 1 && M_SHAPES.some((p) => insideConvex(p, u, v))) hits++;
        }
      }
      const a = hits / (SS * SS);
      const bg = background ?? [markColor[0], markColor[1], markColor[2], 0];
      const i = (y * size + x) * 4;
      for (let c = 0; c < 3; c++) rgba[i + c] = Math.round(markColor[c] * a + bg[c] * (1 - a));
      rgba[i + 3] = Math.round(255 * a + bg[3] * (1 - a));
    }
  }
  return png(size, rgba);
}

const out = (name, buf) => {
  writeFileSync(join(ROOT, 'app', 'assets', name), buf);
  console.log(`app/assets/${name} (${buf.length} bytes)`);
};
out('icon.png', draw(1024, { background: BLUE, markColor: WHITE, markSize: 0.5 }));
// Android masks the foreground to a circle or squircle of about 66% of the side: keep the M well inside it.
out('adaptive-icon.png', draw(1024, { background: null, markColor: WHITE, markSize: 0.36 }));
out('splash-icon.png', draw(1024, { background: null, markColor: BLUE, markSize: 0.6 }));
out('splash-icon-dark.png', draw(1024, { background: null, markColor: LIGHT_BLUE, markSize: 0.6 }));
out('favicon.png', draw(48, { background: BLUE, markColor: WHITE, markSize: 0.56 }));
