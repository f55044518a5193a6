// Debian's Chromium driven by playwright-core (no browser download), a fresh
// profile per launch, and a collector of uncaught page errors.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * @param {{ viewport?: {width:number,height:number}, colorScheme?: 'light'|'dark', locale?: string }} [options]
 */
export async function openBrowser(options = {}) {
  const userDataDir = mkdtempSync(join(tmpdir(), 'meridian-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: options.viewport ?? { width: 1280, height: 800 },
    colorScheme: options.colorScheme ?? 'light',
    // The browser's language (navigator.language, Accept-Language): the app speaks it when it can.
    locale: options.locale ?? 'en-US',
    timeout: 60_000,
  });
  context.setDefaultTimeout(15_000);
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(err));
  const close = async () => {
    await context.close().catch(() => undefined);
    rmSync(userDataDir, { recursive: true, force: true });
  };
  return { context, page, pageErrors, close };
}

export const byTestId = (id) => `[data-testid="${id}"]`;
