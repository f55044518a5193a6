/** The store-facing configuration: app.json, eas.json and the icons (checked here; no device needed). */
import { readFileSync } from 'fs';
import { join } from 'path';
import { inflateSync } from 'zlib';

import { buildConfig } from '../../app.config';

const ROOT = join(__dirname, '..', '..');
const appJson = JSON.parse(readFileSync(join(ROOT, 'app.json'), 'utf8')).expo;
const easJson = JSON.parse(readFileSync(join(ROOT, 'eas.json'), 'utf8'));

/** Width, height and whether every pixel is opaque, for an 8-bit RGBA or RGB PNG without filters beyond 'none'/'sub'/'up'/'avg'/'paeth'. */
function readPng(path: string) {
  const buf = readFileSync(join(ROOT, path));
  expect(buf.subarray(1, 4).toString('ascii')).toBe('PNG');
  const width = buf.readUInt32BE(16);
  const height = buf.readUInt32BE(20);
  const colorType = buf[25];
  const idat: Buffer[] = [];
  for (let off = 8; off < buf.length; ) {
    const len = buf.readUInt32BE(off);
    const type = buf.subarray(off + 4, off + 8).toString('ascii');
    if (type === 'IDAT') idat.push(buf.subarray(off + 8, off + 8 + len));
    off += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const bpp = colorType === 6 ? 4 : 3;
  const stride = width * bpp;
  const out = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let x = 0; x < stride; x++) {
      const v = raw[y * (stride + 1) + 1 + x];
      const a = x >= bpp ? out[y * stride + x - bpp] : 0;
      const b = y > 0 ? out[(y - 1) * stride + x] : 0;
      const c = x >= bpp && y > 0 ? out[(y - 1) * stride + x - bpp] : 0;
      const p = a + b - c;
      const pred = [0, a, b, (a + b) >> 1, Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c][filter];
      out[y * stride + x] = (v + pred) & 0xff;
    }
  }
  let opaque = true;
  if (bpp === 4) for (let i = 3; i < out.length; i += 4) if (out[i] !== 255) opaque = false;
  return { width, height, opaque };
}

describe('app.json', () => {
  it('has a 1024×1024 opaque icon (the App Store refuses transparency)', () => {
    expect(readPng(appJson.icon)).toEqual({ width: 1024, height: 1024, opaque: true });
  });

  it('has an Android adaptive icon: a 1024×1024 foreground on a background colour', () => {
    const adaptive = appJson.android.adaptiveIcon;
    expect(readPng(adaptive.foregroundImage)).toMatchObject({ width: 1024, height: 1024, opaque: false });
    expect(adaptive.backgroundColor).toMatch(/^#[0-9a-f]{6}$/i);
  });

  it('has a splash screen, light and dark', () => {
    const splash = appJson.plugins.find((p: unknown) => Array.isArray(p) && p[0] === 'expo-splash-screen')?.[1];
    expect(splash).toBeTruthy();
    expect(readPng(splash.image)).toMatchObject({ width: 1024, height: 1024 });
    expect(readPng(splash.dark.image)).toMatchObject({ width: 1024, height: 1024 });
    expect(splash.backgroundColor).not.toBe(splash.dark.backgroundColor);
  });

  it('carries the store version codes', () => {
    expect(Number.isInteger(appJson.android.versionCode) && appJson.android.versionCode >= 1).toBe(true);
    expect(appJson.ios.buildNumber).toMatch(/^\d+(\.\d+){0,2}$/);
    expect(appJson.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

});

describe('app.config.ts', () => {
  const cleartext = (config: ReturnType<typeof buildConfig>) =>
    (config.plugins ?? []).find((p: unknown) => Array.isArray(p) && p[0] === 'expo-build-properties')?.[1]?.android?.usesCleartextTraffic;

  it('ships no cleartext traffic outside development builds (preview, production)', () => {
    for (const env of [{}, { APP_VARIANT: 'preview' }, { APP_VARIANT: 'production' }]) {
      const config = buildConfig(appJson, env);
      expect(cleartext(config)).toBe(false);
      expect(config.ios?.infoPlist?.NSAppTransportSecurity).toBeUndefined();
      expect(config.extra?.allowHttp).toBe(false);
    }
    // Nor does the static part carry any.
    expect(JSON.stringify(appJson)).not.toMatch(/usesCleartextTraffic|NSAppTransportSecurity/);
  });

  it('lets a development build reach a server on the LAN over http (the Server field)', () => {
    const config = buildConfig(appJson, { APP_VARIANT: 'development' });
    expect(cleartext(config)).toBe(true);
    expect(config.ios?.infoPlist?.NSAppTransportSecurity).toEqual({ NSAllowsLocalNetworking: true });
    expect(config.extra?.allowHttp).toBe(true);
    expect(easJson.build.development.env.APP_VARIANT).toBe('development');
    expect(easJson.build.production.env?.APP_VARIANT).toBeUndefined();
  });

  it('asks for Face ID with a reason and sets up push notifications', () => {
    const config = buildConfig(appJson, {});
    expect(config.ios?.infoPlist?.NSFaceIDUsageDescription).toMatch(/Face ID/);
    const names = (config.plugins ?? []).map((p) => (Array.isArray(p) ? p[0] : p));
    expect(names).toEqual(expect.arrayContaining(['expo-local-authentication', 'expo-notifications']));
  });
});

describe('eas.json', () => {
  it('has development, preview and production profiles; versions come from app.json', () => {
    expect(Object.keys(easJson.build).sort()).toEqual(['development', 'preview', 'production']);
    expect(easJson.cli.appVersionSource).toBe('local');
    expect(easJson.build.development.distribution).toBe('internal');
    expect(easJson.build.preview.distribution).toBe('internal');
    expect(easJson.build.production.autoIncrement).toBe(true);
  });
});
