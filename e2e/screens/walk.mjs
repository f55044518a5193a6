// Helpers for the screen walk (e2e/screens.test.mjs): toasts, sign-in, axe-core,
// overflow checks, screenshots and a small step runner with a summary.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { byTestId } from '../lib/browser.mjs';
import { ROOT } from '../lib/server.mjs';

export const SCREENSHOTS = join(ROOT, 'screenshots');
export const AXE_PATH = join(ROOT, 'node_modules', 'axe-core', 'axe.min.js');

export const ALICE = { email: 'alice@meridian.test', password: 'alice12345' };
export const BOB = { email: 'bob@meridian.test', password: 'bob12345' };
export const ADMIN = { email: 'admin@meridian.test', password: 'admin12345' };

export const tid = byTestId;

export function currentPath(page) {
  const u = new URL(page.url());
  return u.pathname + u.search;
}

export async function waitForPath(page, expected, timeout = 15_000) {
  await page.waitForFunction((p) => location.pathname + location.search === p, expected, { timeout });
}

/** Waits for a toast whose text is exactly `text` (of the given type when set). */
export async function expectToast(page, text, type) {
  const sel = type ? tid(`toast-${type}`) : '[data-testid^="toast-"]';
  try {
    await page.locator(sel).filter({ hasText: text }).first().waitFor({ state: 'visible', timeout: 15_000 });
  } catch (e) {
    const shown = await page.locator('[data-testid^="toast-"]').allTextContents().catch(() => []);
    throw new Error(`toast "${text}"${type ? ` (${type})` : ''} did not appear; toasts shown: ${JSON.stringify(shown)}`);
  }
  const exact = await page.locator(sel).filter({ hasText: text }).first().textContent();
  if (!exact?.includes(text)) throw new Error(`toast text "${exact}" does not hold "${text}"`);
  return { text, type: type ?? 'any' };
}

/** Dismisses every toast (they would cover the page in screenshots). */
export async function clearToasts(page) {
  await page.waitForFunction(() => document.querySelectorAll('[data-testid^="toast-"]').length === 0, null, { timeout: 6_000 }).catch(() => undefined);
}

export async function signIn(page, baseURL, { email, password }, { expectSuccess = true } = {}) {
  if (!currentPath(page).startsWith('/auth')) await page.goto(`${baseURL}/auth`);
  await page.locator(tid('login-username')).waitFor();
  await page.locator(tid('login-username')).fill(email);
  await page.locator(tid('login-password')).fill(password);
  await page.locator(tid('login-submit')).click();
  if (expectSuccess) await page.locator(tid('shell')).waitFor({ timeout: 20_000 });
}

/** After the screen's root appears: no spinner left, network quiet. */
export async function settle(page, screenTestId) {
  await page.locator(tid(screenTestId)).first().waitFor({ state: 'visible', timeout: 20_000 });
  await page
    .waitForFunction(() => ![...document.querySelectorAll('[role="progressbar"], [aria-busy="true"]')].some((el) => el.getClientRects().length > 0), null, {
      timeout: 10_000,
    })
    .catch(() => undefined);
  await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => undefined);
  await page.waitForTimeout(250);
}

/** Picks the <option> of a Select (web: a real <select>) whose text contains `text`. */
export async function selectContaining(page, testId, text) {
  const select = page.locator(`select${tid(testId)}`);
  await select.waitFor();
  const value = await select.evaluate((el, t) => {
    const opt = [...el.options].find((o) => o.textContent.includes(t));
    return opt ? opt.value : null;
  }, text);
  if (value === null) {
    const all = await select.evaluate((el) => [...el.options].map((o) => o.textContent));
    throw new Error(`no option containing "${text}" in ${testId}: ${JSON.stringify(all)}`);
  }
  await select.selectOption(value);
}

export const isDisabled = async (locator) =>
  (await locator.getAttribute('aria-disabled')) === 'true' || (await locator.isDisabled().catch(() => false));

/** axe-core in the page; returns the serious and critical violations (and all, for the report). */
export async function runAxe(page) {
  const has = await page.evaluate(() => typeof window.axe !== 'undefined');
  if (!has) await page.addScriptTag({ path: AXE_PATH });
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.join(' '), html: n.html.slice(0, 200), summary: n.failureSummary?.slice(0, 300) })),
    }));
  });
  return { all: result, blocking: result.filter((v) => v.impact === 'serious' || v.impact === 'critical') };
}

/** document.documentElement.scrollWidth (no page-wide horizontal scroll at 390px). */
export const scrollWidth = (page) => page.evaluate(() => document.documentElement.scrollWidth);

export async function screenshot(page, name) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** A step runner: every step runs, failures are collected, a summary is printed at the end. */
export function createRunner() {
  const steps = [];
  const notes = { toasts: [], axe: [], overflow: [], screenshots: [], pageErrors: [] };
  async function step(name, fn) {
    const started = Date.now();
    try {
      await fn();
      steps.push({ name, ok: true, ms: Date.now() - started });
      console.log(`  ✓ ${name} (${Date.now() - started} ms)`);
    } catch (err) {
      steps.push({ name, ok: false, ms: Date.now() - started, error: err });
      console.log(`  ✗ ${name}\n      ${String(err?.message ?? err).split('\n').join('\n      ')}`);
    }
  }
  function summary() {
    const failed = steps.filter((s) => !s.ok);
    const blocking = notes.axe.filter((a) => a.blocking.length > 0);
    console.log('\n================ screen walk summary ================');
    console.log(`steps: ${steps.length - failed.length} passed, ${failed.length} failed`);
    console.log(`toasts seen (${notes.toasts.length}): ${[...new Set(notes.toasts)].map((t) => JSON.stringify(t)).join(', ')}`);
    console.log(`screenshots written: ${notes.screenshots.length} in ${SCREENSHOTS}`);
    console.log(`axe: ${notes.axe.length} screen checks, ${blocking.length} with serious/critical violations`);
    const byRule = new Map();
    for (const a of notes.axe) {
      for (const v of a.blocking) {
        const key = `${v.id} (${v.impact}): ${v.help}`;
        if (!byRule.has(key)) byRule.set(key, new Map());
        for (const n of v.nodes) {
          const m = byRule.get(key);
          if (!m.has(n.target)) m.set(n.target, { html: n.html, screens: new Set() });
          m.get(n.target).screens.add(a.screen);
        }
      }
    }
    for (const [rule, nodes] of byRule) {
      console.log(`  - ${rule}`);
      for (const [target, { html, screens }] of nodes) {
        console.log(`      ${target}\n        ${html}\n        on: ${[...screens].join(', ')}`);
      }
    }
    const wide = notes.overflow.filter((o) => o.width > 391);
    console.log(`390px overflow: ${notes.overflow.length} checked, ${wide.length} too wide${wide.length ? `: ${wide.map((o) => `${o.screen}=${o.width}px`).join(', ')}` : ''}`);
    console.log(`uncaught page errors: ${notes.pageErrors.length}`);
    for (const e of notes.pageErrors) console.log(`  - ${e}`);
    if (failed.length) {
      console.log('\nFAILED steps:');
      for (const f of failed) console.log(`  ✗ ${f.name}: ${String(f.error?.message ?? f.error).split('\n')[0]}`);
    }
    mkdirSync(SCREENSHOTS, { recursive: true });
    writeFileSync(
      join(SCREENSHOTS, 'walk-report.json'),
      JSON.stringify(
        {
          steps: steps.map((s) => ({ name: s.name, ok: s.ok, ms: s.ms, error: s.error ? String(s.error.message ?? s.error) : undefined })),
          toasts: [...new Set(notes.toasts)],
          axe: notes.axe,
          overflow: notes.overflow,
          pageErrors: notes.pageErrors,
        },
        null,
        2,
      ),
    );
    console.log(`report: ${join(SCREENSHOTS, 'walk-report.json')}`);
    console.log(failed.length ? 'RESULT: FAIL' : 'RESULT: PASS');
    return failed.length === 0;
  }
  return { step, notes, summary };
}
