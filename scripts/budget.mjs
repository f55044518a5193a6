#!/usr/bin/env node
// Web performance budget:
//  1. the initial JavaScript of the web app (the scripts index.html loads), gzipped;
//  2. the time until /auth is rendered in headless Chromium.
// Against BUDGET_URL (or --url) when given, else it starts bin/meridian itself
// (fresh data dir, embedded PostgreSQL). Exits 1 when the JS budget is exceeded.
//
//   npm run budget                     # starts bin/meridian
//   npm run budget -- --url http://127.0.0.1:8080
//   BUDGET_JS_KB=350 BUDGET_RUNS=5 npm run budget
import { gzipSync } from 'node:zlib';

import { byTestId, openBrowser } from '../e2e/lib/browser.mjs';
import { startServer } from '../e2e/lib/server.mjs';

const argUrl = (() => {
  const i = process.argv.indexOf('--url');
  return i > -1 ? process.argv[i + 1] : undefined;
})();
const JS_BUDGET_KB = Number(process.env.BUDGET_JS_KB ?? 350);
const RUNS = Math.max(1, Number(process.env.BUDGET_RUNS ?? 5));

const kb = (bytes) => (bytes / 1024).toFixed(1);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function initialJavaScript(baseURL) {
  const html = await (await fetch(`${baseURL}/auth`)).text();
  const srcs = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]);
  if (srcs.length === 0) throw new Error('index.html loads no script: is the web app embedded?');
  const files = [];
  for (const src of srcs) {
    const res = await fetch(new URL(src, baseURL), { headers: { 'Accept-Encoding': 'identity' } });
    if (!res.ok) throw new Error(`${src}: HTTP ${res.status}`);
    const body = Buffer.from(await res.arrayBuffer());
    files.push({ src, raw: body.length, gzip: gzipSync(body, { level: 9 }).length });
  }
  return files;
}

/** ms from navigation start until the /auth heading is in the DOM (cold cache: a fresh profile each run). */
async function authRenderTime(baseURL) {
  const browser = await openBrowser();
  try {
    await browser.page.addInitScript(() => {
      const mark = () => {
        if (!window.__authRenderedAt && document.querySelector('[data-testid="auth-heading"]')) {
          window.__authRenderedAt = performance.now();
        }
      };
      new MutationObserver(mark).observe(document, { childList: true, subtree: true });
    });
    const cold = await measure(browser.page, baseURL);
    const warm = await measure(browser.page, baseURL);
    if (browser.pageErrors.length) throw browser.pageErrors[0];
    return { cold, warm };
  } finally {
    await browser.close();
  }
}

async function measure(page, baseURL) {
  await page.goto(`${baseURL}/auth`, { waitUntil: 'commit' });
  await page.locator(byTestId('auth-heading')).waitFor({ timeout: 30_000 });
  await page.waitForFunction(() => window.__authRenderedAt !== undefined);
  const t = await page.evaluate(() => ({
    rendered: window.__authRenderedAt,
    js: performance
      .getEntriesByType('resource')
      .filter((e) => e.initiatorType === 'script')
      .reduce((sum, e) => sum + (e.transferSize || 0), 0),
  }));
  return t;
}

async function main() {
  let server;
  let baseURL = argUrl ?? process.env.BUDGET_URL;
  if (!baseURL) {
    process.stdout.write('starting bin/meridian... ');
    server = await startServer();
    baseURL = server.baseURL;
    console.log(`up at ${baseURL}`);
  }
  try {
    const files = await initialJavaScript(baseURL);
    const totalGzip = files.reduce((s, f) => s + f.gzip, 0);
    const totalRaw = files.reduce((s, f) => s + f.raw, 0);
    console.log('\nInitial JavaScript (scripts in index.html):');
    for (const f of files) console.log(`  ${f.src}  ${kb(f.raw)} KB raw, ${kb(f.gzip)} KB gzip`);
    console.log(`  total: ${kb(totalRaw)} KB raw, ${kb(totalGzip)} KB gzipped (budget ${JS_BUDGET_KB} KB)`);

    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await authRenderTime(baseURL));
    const cold = runs.map((r) => r.cold.rendered);
    const warm = runs.map((r) => r.warm.rendered);
    console.log(`\n/auth rendered (headless Chromium, ${RUNS} runs, ms after navigation start):`);
    console.log(`  cold cache: median ${median(cold).toFixed(0)} (min ${Math.min(...cold).toFixed(0)}, max ${Math.max(...cold).toFixed(0)})`);
    console.log(`  warm cache: median ${median(warm).toFixed(0)} (min ${Math.min(...warm).toFixed(0)}, max ${Math.max(...warm).toFixed(0)})`);
    console.log(`  script bytes transferred on a cold load: ${kb(runs[0].cold.js)} KB`);

    const ok = totalGzip <= JS_BUDGET_KB * 1024;
    console.log(`\nbudget: initial JS ${kb(totalGzip)} KB gzipped ${ok ? '<=' : '>'} ${JS_BUDGET_KB} KB: ${ok ? 'OK' : 'OVER BUDGET'}`);
    console.log(`budget: /auth rendered in ${median(cold).toFixed(0)} ms (cold, median)`);
    process.exitCode = ok ? 0 : 1;
  } finally {
    await server?.stop();
  }
}

main().catch((err) => {
  console.error(`budget failed: ${err.stack ?? err}`);
  process.exit(1);
});
