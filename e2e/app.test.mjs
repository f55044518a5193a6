// End-to-end: the real bin/meridian (embedded PostgreSQL, fresh data dir) and
// the embedded web app in Debian's Chromium. Run with `npm run e2e`.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { api, newCustomer, openAccount, openTypedAccount, signInApi, unique } from './lib/api.mjs';
import { byTestId, openBrowser } from './lib/browser.mjs';
import { ROOT, startServer } from './lib/server.mjs';
import { selectContaining } from './screens/walk.mjs';
import { stepOf, totp } from './lib/totp.mjs';

const ARTIFACTS = join(ROOT, 'e2e', 'artifacts');
const ALICE = { email: 'alice@meridian.test', password: 'alice12345' };
const ADMIN = { email: 'admin@meridian.test', password: 'admin12345' };

let server;

/** Runs a scenario in a fresh browser; screenshots on failure; fails on any uncaught page error. */
async function scenario(name, fn, options) {
  const browser = await openBrowser(options);
  try {
    await fn(browser.page, browser);
  } catch (err) {
    mkdirSync(ARTIFACTS, { recursive: true });
    const file = join(ARTIFACTS, `${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
    await browser.page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    err.message += `\n(screenshot: ${file}; url: ${browser.page.url()})`;
    throw err;
  } finally {
    const errors = browser.pageErrors.map((e) => e.stack ?? String(e));
    await browser.close();
    assert.deepEqual(errors, [], `uncaught page errors in "${name}"`);
  }
}

const path = (page) => {
  const u = new URL(page.url());
  return u.pathname + u.search;
};

async function waitForPath(page, expected) {
  await page.waitForFunction((p) => location.pathname + location.search === p, expected, { timeout: 15_000 });
}

async function expectToast(page, text) {
  await page.locator('[data-testid^="toast-"]', { hasText: text }).first().waitFor({ state: 'visible' });
}

async function signIn(page, { email, password }) {
  await page.locator(byTestId('login-username')).fill(email);
  await page.locator(byTestId('login-password')).fill(password);
  await page.locator(byTestId('login-submit')).click();
}

async function pageTitle(page) {
  return (await page.locator(byTestId('page-title')).first().textContent())?.trim();
}

const storage = (page, key) => page.evaluate((k) => window.localStorage.getItem(k), key);

before(async () => {
  // Scheduled transfers run within scheduler_interval of their time: 1 s here, so the walk waits seconds, not minutes.
  server = await startServer({ env: { MERIDIAN_SCHEDULER_INTERVAL: '1s' } });
});

after(async () => {
  await server?.stop();
});

describe('Meridian web app against bin/meridian', () => {
  test('the server serves the app and its assets', async () => {
    const html = await (await fetch(`${server.baseURL}/auth`)).text();
    assert.match(html, /<div id="root">/);
    const script = html.match(/src="(\/_expo\/static\/js\/web\/index-[^"]+\.js)"/);
    assert.ok(script, 'index.html references the hashed entry bundle');
    const res = await fetch(server.baseURL + script[1]);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('cache-control') ?? '', /max-age=31536000/);
  });

  test('sign up, then sign in with the new account', async () => {
    await scenario('sign up', async (page) => {
      const email = `${unique('signup')}@example.test`;
      await page.goto(`${server.baseURL}/auth`);
      await page.locator(byTestId('auth-heading')).waitFor();
      assert.equal(await page.locator(byTestId('auth-heading')).textContent(), 'Welcome to Meridian Bank');
      assert.equal(await page.locator(byTestId('auth-subtitle')).textContent(), 'Sign in to your account');

      await page.locator(byTestId('tab-register')).click();
      assert.equal(await page.locator(byTestId('auth-subtitle')).textContent(), 'Create your account');
      assert.equal(await page.locator(byTestId('register-email')).getAttribute('type'), 'email');
      assert.equal(await page.locator(byTestId('register-phone')).getAttribute('type'), 'tel');
      assert.equal(await page.locator(byTestId('register-password')).getAttribute('type'), 'password');
      await page.locator(byTestId('register-fullname')).fill('Erin Example');
      await page.locator(byTestId('register-email')).fill(email);
      await page.locator(byTestId('register-phone')).fill('+15550199');
      await page.locator(byTestId('register-password')).fill('erin-pass-123');
      await page.locator(byTestId('register-submit')).click();
      await expectToast(page, 'Registration successful!');
      // Back on the Login tab, the username filled in.
      await page.locator(byTestId('login-form')).waitFor();
      assert.equal(await page.locator(byTestId('auth-subtitle')).textContent(), 'Sign in to your account');
      assert.equal(await page.locator(byTestId('login-username')).inputValue(), email);

      // The same email again: the server's message.
      await page.locator(byTestId('tab-register')).click();
      await page.locator(byTestId('register-fullname')).fill('Erin Again');
      await page.locator(byTestId('register-email')).fill(email);
      await page.locator(byTestId('register-phone')).fill('+15550199');
      await page.locator(byTestId('register-password')).fill('erin-pass-123');
      await page.locator(byTestId('register-submit')).click();
      await expectToast(page, 'An account with this email already exists');

      await page.locator(byTestId('tab-login')).click();
      await signIn(page, { email, password: 'erin-pass-123' });
      await expectToast(page, 'Login successful!');
      await waitForPath(page, '/');
      await page.locator(byTestId('screen-user-dashboard')).waitFor();
      assert.equal(await pageTitle(page), 'Dashboard');
      const user = JSON.parse(await storage(page, 'user'));
      assert.equal(user.email, email);
      assert.equal(user.role, 'User');
    });
  });

  test('sign in: wrong password, then the demo customer', async () => {
    await scenario('sign in', async (page) => {
      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, { email: ALICE.email, password: 'wrong-password' });
      await expectToast(page, 'Invalid credentials');
      assert.equal(await storage(page, 'token'), null);

      await signIn(page, ALICE);
      await expectToast(page, 'Login successful!');
      await waitForPath(page, '/');
      await page.locator(byTestId('shell')).waitFor();
      assert.ok((await storage(page, 'token'))?.length > 10, 'token stored');
      // Customer links, no admin links.
      await page.locator(byTestId('nav-transfer-funds')).waitFor();
      assert.equal(await page.locator(byTestId('nav-users')).count(), 0);
      assert.equal(await page.locator(byTestId('sidebar-group-admin')).count(), 0);
      // Sidebar links are real links with the spec's URLs.
      assert.equal(await page.locator(byTestId('nav-money-request')).getAttribute('href'), '/money-request');
      await page.locator(byTestId('nav-money-request')).click();
      await waitForPath(page, '/money-request');
      assert.equal(await pageTitle(page), 'Money Requests');
      // Browser back works.
      await page.goBack();
      await waitForPath(page, '/');

      // An admin-only page: 'Unauthorized access' and back to /.
      await page.goto(`${server.baseURL}/users`);
      await expectToast(page, 'Unauthorized access');
      await waitForPath(page, '/');
    });
  });

  test('the admin gets the Admin Dashboard and the admin pages', async () => {
    await scenario('admin', async (page) => {
      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, ADMIN);
      await page.locator(byTestId('screen-admin-dashboard')).waitFor();
      assert.equal(await pageTitle(page), 'Admin Dashboard');
      assert.equal(await page.locator(byTestId('nav-transfer-funds')).count(), 0);
      await page.locator(byTestId('nav-assign')).click();
      await waitForPath(page, '/Assign');
      assert.equal(await pageTitle(page), 'Role Assignment');
      await page.locator(byTestId('nav-logs')).click();
      await waitForPath(page, '/logs');
      assert.equal(await pageTitle(page), 'System Logs');
    });
  });

  test('a signed-out visitor is sent to /auth and comes back to the page after signing in', async () => {
    await scenario('remembered page', async (page) => {
      await page.goto(`${server.baseURL}/transaction-history?account_id=100200300`);
      await waitForPath(page, '/auth');
      await page.locator(byTestId('auth-heading')).waitFor();
      await signIn(page, ALICE);
      await waitForPath(page, '/transaction-history?account_id=100200300');
      assert.equal(await pageTitle(page), 'Transaction History');
    });
  });

  test('the theme choice survives a reload', async () => {
    await scenario('theme', async (page) => {
      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, ALICE);
      await page.locator(byTestId('theme-toggle')).waitFor();
      const rootClass = () => page.evaluate(() => document.documentElement.className);
      assert.match(await rootClass(), /\blight\b/);
      assert.equal(await storage(page, 'vite-ui-theme'), null, 'default: system (nothing stored)');

      await page.locator(byTestId('theme-toggle')).click();
      await page.waitForFunction(() => document.documentElement.classList.contains('dark'));
      assert.equal(await storage(page, 'vite-ui-theme'), 'dark');

      await page.reload();
      await page.locator(byTestId('shell')).waitFor();
      assert.match(await rootClass(), /\bdark\b/);
      assert.doesNotMatch(await rootClass(), /\blight\b/);

      await page.locator(byTestId('theme-toggle')).click();
      await page.waitForFunction(() => document.documentElement.classList.contains('light'));
      assert.equal(await storage(page, 'vite-ui-theme'), 'light');
    });
  });

  test('sign out clears the session and goes to /auth', async () => {
    await scenario('sign out', async (page) => {
      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, ALICE);
      await page.locator(byTestId('profile-button')).click();
      await page.locator(byTestId('profile-menu')).getByText('My Account').waitFor();
      const token = await storage(page, 'token');
      await page.locator(byTestId('menu-logout')).click();
      await waitForPath(page, '/auth');
      await page.locator(byTestId('auth-heading')).waitFor();
      assert.equal(await storage(page, 'token'), null);
      assert.equal(await storage(page, 'user'), null);
      // The token was revoked on the server too.
      const me = await fetch(`${server.baseURL}/api/auth/me`, { headers: { Authorization: `Bearer ${token}` } });
      assert.equal(me.status, 401);
      // Signed out: the app sends / to /auth.
      await page.goto(`${server.baseURL}/`);
      await waitForPath(page, '/auth');
    });
  });

  test('a toast raised while a form is open shows above it; Escape closes the request menu', async () => {
    await scenario('toast over modal, menu escape', async (page) => {
      const payer = await newCustomer(server.baseURL, 'Menu Payer');
      const payerAccount = await openAccount(payer, 50);
      const asker = await newCustomer(server.baseURL, 'Menu Asker');
      const askerAccount = await openAccount(asker, 0);
      const request = await asker.client.post('/user/money-request', {
        requester_id: askerAccount.account_number,
        recipient_id: payerAccount.account_number,
        amount: 2,
        description: 'menu',
      });

      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, payer);
      await page.locator(byTestId('shell')).waitFor();

      // The transfer form open, submitted empty: the toast is on top of the dialog, not under it.
      await page.goto(`${server.baseURL}/transfer-funds`);
      await page.locator(byTestId('transfer-open')).click();
      await page.locator(byTestId('transfer-modal')).waitFor();
      await page.locator(byTestId('transfer-submit')).click();
      const toastEl = page.locator('[data-testid="toast-error"]', { hasText: 'Amount, From Account, and Recipient are required.' });
      await toastEl.waitFor({ state: 'visible' });
      assert.equal(await page.locator('[data-testid="toast-error"]', { hasText: 'Amount, From Account, and Recipient are required.' }).count(), 1);
      const onTop = await toastEl.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !!hit && el.contains(hit);
      });
      assert.equal(onTop, true, 'the toast is the topmost element where it is drawn');
      await page.keyboard.press('Escape');
      await page.locator(byTestId('transfer-modal')).waitFor({ state: 'detached' });

      // The Accept/Decline menu: Escape closes it, and so does a click outside.
      await page.goto(`${server.baseURL}/money-request`);
      const menu = page.locator(byTestId(`request-menu-${request.data.ID}`));
      await menu.click();
      await page.locator(byTestId(`request-accept-${request.data.ID}`)).waitFor();
      assert.equal(await menu.getAttribute('aria-expanded'), 'true');
      await page.keyboard.press('Escape');
      await page.locator(byTestId(`request-accept-${request.data.ID}`)).waitFor({ state: 'detached' });
      await menu.click();
      await page.locator(byTestId(`request-decline-${request.data.ID}`)).waitFor();
      await page.mouse.click(5, 400);
      await page.locator(byTestId(`request-decline-${request.data.ID}`)).waitFor({ state: 'detached' });
      // The page has its 'Request History' heading.
      await page.getByRole('heading', { name: 'Request History' }).waitFor();
    });
  });

  test('a session signed out from elsewhere lands on /auth within 2 s, without a click', async () => {
    const c = await newCustomer(server.baseURL, 'Rita Revoked');
    await openAccount(c, 50);
    await scenario('signed out elsewhere', async (page) => {
      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, c);
      await page.locator(byTestId('shell')).waitFor();
      await page.goto(`${server.baseURL}/transfer-funds`);
      await page.locator(byTestId('screen-transfer-funds')).waitFor();
      await page.locator(`${byTestId('notifications-button')}[data-live="open"]`).waitFor();
      // Security → "Sign out all other sessions" from the customer's other device.
      await c.client.post('/auth/sessions/revoke-others');
      const started = Date.now();
      await page.waitForFunction(() => location.pathname === '/auth', null, { timeout: 2_000 });
      const took = Date.now() - started;
      await page.locator(byTestId('auth-heading')).waitFor();
      assert.equal(await storage(page, 'token'), null, 'the token is gone from the device');
      assert.equal(await storage(page, 'user'), null);
      console.log(`E2E signed out elsewhere: on /auth ${took} ms after the revocation`);
    });
  });

  test('in Spanish, sign-in, the dashboard and a transfer show no English; every <select> is in the app font', async () => {
    const catalog = JSON.parse(readFileSync(join(ROOT, 'app', 'i18n', 'es.json'), 'utf8'));
    // English sentences whose Spanish differs ("PDF", "ID" read the same in both).
    const english = Object.entries(catalog)
      .filter(([key, value]) => !/_(one|other)$/.test(key) && !key.includes('{{') && key !== value && key.length > 2)
      .map(([key]) => key);
    const englishLeft = (page) =>
      page.evaluate((texts) => {
        const shown = new Set();
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const el = n.parentElement;
          if (el && el.getClientRects().length > 0) shown.add(n.textContent.trim());
        }
        for (const el of document.querySelectorAll('[placeholder], [aria-label], option')) {
          shown.add((el.getAttribute('placeholder') ?? '').trim());
          shown.add((el.getAttribute('aria-label') ?? '').trim());
          if (el.tagName === 'OPTION') shown.add(el.textContent.trim());
        }
        return texts.filter((t) => shown.has(t));
      }, english);
    /** Every <select>'s font is the font of the app's text (not the browser's serif). */
    const selectFonts = (page) =>
      page.evaluate(() => {
        const app = getComputedStyle(document.querySelector('[data-testid="page-title"]')).fontFamily;
        return [...document.querySelectorAll('select')].map((s) => ({ id: s.dataset.testid, font: getComputedStyle(s).fontFamily, app }));
      });

    const a = await newCustomer(server.baseURL, 'Lucía Pérez');
    const b = await newCustomer(server.baseURL, 'Jorge Ruiz');
    const from = await openAccount(a, 300);
    const to = await openAccount(b, 0);
    await scenario('spanish', async (page) => {
      await page.goto(`${server.baseURL}/auth`);
      await page.locator(byTestId('auth-heading')).waitFor();
      assert.equal(await page.locator(byTestId('auth-heading')).textContent(), 'Bienvenido a Meridian Bank');
      assert.equal(await page.evaluate(() => document.documentElement.lang), 'es');
      assert.deepEqual(await englishLeft(page), [], 'English on /auth');
      await signIn(page, a);
      await expectToast(page, '¡Sesión iniciada!');
      await page.locator(byTestId('screen-user-dashboard')).waitFor();
      await page.getByText('Movimientos recientes').waitFor();
      await page.waitForFunction(() => !document.querySelector('[data-testid="shell-loading"]'));
      assert.deepEqual(await englishLeft(page), [], 'English on the dashboard');
      for (const s of await selectFonts(page)) assert.equal(s.font, s.app, `font of <select> ${s.id}`);

      await page.goto(`${server.baseURL}/transfer-funds`);
      await page.locator(byTestId('screen-transfer-funds')).waitFor();
      await page.locator(byTestId('transfer-open')).click();
      await page.locator(byTestId('transfer-modal')).waitFor();
      const fonts = await selectFonts(page);
      assert.ok(fonts.length >= 1, 'the form has its select');
      for (const s of fonts) assert.equal(s.font, s.app, `font of <select> ${s.id}`);
      await selectContaining(page, 'transfer-from', from.account_number);
      // The iOS decimal pad of a comma-decimal locale types "12,50".
      await page.locator(byTestId('transfer-amount')).fill('12,50');
      await page.locator(byTestId('transfer-to')).fill(to.account_number);
      await page.getByText('Jorge Ruiz').first().waitFor();
      assert.deepEqual(await englishLeft(page), [], 'English in the transfer form');
      await page.locator(byTestId('transfer-submit')).click();
      await expectToast(page, '¡Transferencia realizada!');
      await page.locator(byTestId('transfer-modal')).waitFor({ state: 'detached' });
      assert.deepEqual(await englishLeft(page), [], 'English on Transfer Funds after the transfer');
      // The amount moved as typed: 12.50.
      const accounts = await a.client.get('/user/accounts');
      assert.equal(accounts.find((x) => x.account_number === from.account_number).balance, 287.5);
    }, { locale: 'es-ES' });
  });

  test('a live notification: a transfer to B shows a toast and the badge', async () => {
    const a = await newCustomer(server.baseURL, 'Alan Sender');
    const b = await newCustomer(server.baseURL, 'Beth Receiver');
    const accountA = await openAccount(a, 500);
    const accountB = await openAccount(b, 0);

    await scenario('live notification', async (page) => {
      const socketOpened = page.waitForEvent('websocket', { predicate: (ws) => ws.url().includes('/ws?'), timeout: 20_000 });
      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, b);
      await page.locator(byTestId('shell')).waitFor();
      const ws = await socketOpened;
      // The token travels as a subprotocol, never in the URL.
      assert.match(ws.url(), new RegExp(`/ws\\?user_id=${b.user.id}$`));
      assert.equal(await page.locator(byTestId('notifications-badge')).count(), 0, 'a new customer has nothing unread');
      // The app marks the bell once the socket is open.
      await page.locator(`${byTestId('notifications-button')}[data-live="open"]`).waitFor();

      await a.client.post('/user/money-transfer', {
        account_id: accountA.account_number,
        to_account_id: accountB.account_number,
        amount: 12.5,
        description: 'e2e live notification',
      });

      const message = `You received $12.50 from account ${accountA.account_number}`;
      await expectToast(page, message);
      await page.locator(byTestId('notifications-badge')).getByText('1', { exact: true }).waitFor();

      await page.locator(byTestId('notifications-button')).click();
      const first = page.locator(byTestId('notification-item')).first();
      await first.getByText(message).waitFor();
      assert.equal(await first.locator(byTestId('notification-new-badge')).count(), 1);
      assert.match((await page.locator(byTestId('notifications-count')).textContent()) ?? '', /You have 1 new notifications/);
      await first.click();
      await page.locator(byTestId('notifications-count')).getByText('You have 0 new notifications').waitFor();
      assert.equal(await page.locator(byTestId('notifications-badge')).count(), 0);
      // Stored as read on the server.
      const stored = await b.client.get('/user/notifications');
      assert.equal(stored.find((n) => n.message === message)?.is_new, false);
    });
  });

  test('two-factor sign-in: set up with the in-app QR code, sign in with a code, end another session from Security', async () => {
    const c = await newCustomer(server.baseURL, 'Tess Twofactor');
    let backupCodes = [];
    let secret = '';

    await scenario('two-factor', async (page) => {
      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, c);
      await page.locator(byTestId('shell')).waitFor();

      // Security, from the profile menu.
      await page.locator(byTestId('profile-button')).click();
      await page.locator(byTestId('menu-security')).click();
      await waitForPath(page, '/security');
      assert.equal(await pageTitle(page), 'Security');
      assert.equal((await page.locator(byTestId('twofactor-state')).textContent())?.trim(), 'Off');

      // Set up: the QR code is an SVG drawn by the app (no image from elsewhere), the key beside it.
      const setup = page.waitForResponse((r) => r.url().endsWith('/api/auth/2fa/setup') && r.request().method() === 'POST');
      await page.locator(byTestId('twofactor-setup-start')).click();
      const answer = await (await setup).json();
      await page.locator(`${byTestId('twofactor-qr')} svg path`).first().waitFor();
      assert.equal(await page.locator(`${byTestId('twofactor-qr')} img`).count(), 0);
      assert.equal(await page.locator(byTestId('twofactor-qr')).getAttribute('aria-label'), 'QR code for your authenticator app');
      secret = ((await page.locator(byTestId('twofactor-secret')).textContent()) ?? '').replace(/\s+/g, '');
      assert.equal(secret, answer.secret, 'the key on the page is the one the server made');
      assert.match(answer.otpauth_url, new RegExp(`secret=${secret}`));

      // Turn on with the previous step's code (one step of drift is allowed), so the
      // current step's code is still unused for the sign-in below.
      await page.locator(byTestId('twofactor-code')).fill(totp(secret, stepOf() - 1));
      await page.locator(byTestId('twofactor-enable')).click();
      await page.locator(byTestId('twofactor-backup-codes')).waitFor();
      backupCodes = (await page.locator(byTestId('twofactor-backup-code')).allTextContents()).map((t) => t.trim());
      assert.equal(backupCodes.length, 10);
      for (const code of backupCodes) assert.match(code, /^[a-z2-9]{5}-[a-z2-9]{5}$/);
      await page.locator(byTestId('twofactor-codes-saved')).click();
      await page.locator(byTestId('twofactor-codes-done')).click();
      await expectToast(page, 'Two-factor sign-in is on');
      await page.locator(byTestId('twofactor-state')).getByText('On', { exact: true }).waitFor();
      assert.equal(await page.locator(byTestId('twofactor-backup-code')).count(), 0, 'the codes are shown once');

      // Sign out, then in again: the password, then the code.
      await page.locator(byTestId('profile-button')).click();
      await page.locator(byTestId('menu-logout')).click();
      await waitForPath(page, '/auth');
      await signIn(page, c);
      await page.locator(byTestId('twofactor-form')).waitFor();
      assert.equal(await storage(page, 'token'), null, 'no token after the password alone');
      const now = stepOf();
      const valid = new Set([totp(secret, now - 1), totp(secret, now), totp(secret, now + 1)]);
      let wrong = '000000';
      while (valid.has(wrong)) wrong = String(Number(wrong) + 1).padStart(6, '0');
      await page.locator(byTestId('login-code')).fill(wrong);
      await page.locator(byTestId('login-verify')).click();
      await page.locator(byTestId('twofactor-form')).getByText('Invalid code').waitFor();
      await page.locator(byTestId('login-code')).fill(totp(secret, stepOf()));
      await page.locator(byTestId('login-verify')).click();
      await expectToast(page, 'Login successful!');
      await waitForPath(page, '/');
      assert.ok((await storage(page, 'token'))?.length > 10);

      // A second browser signs in with a backup code.
      const other = await openBrowser();
      let otherSession;
      try {
        await other.page.goto(`${server.baseURL}/auth`);
        await signIn(other.page, c);
        await other.page.locator(byTestId('login-code')).fill(backupCodes[0]);
        await other.page.locator(byTestId('login-verify')).click();
        await other.page.locator(byTestId('shell')).waitFor();
        const otherToken = await storage(other.page, 'token');
        const mine = await fetch(`${server.baseURL}/api/auth/sessions`, { headers: { Authorization: `Bearer ${otherToken}` } });
        otherSession = (await mine.json()).find((s) => s.current);
        assert.ok(otherSession, 'the second browser has its session');

        // From the first browser: its Security page lists it; Sign out ends it.
        await page.locator(byTestId('profile-button')).click();
        await page.locator(byTestId('menu-security')).click();
        await waitForPath(page, '/security');
        const row = page.locator(byTestId(`session-${otherSession.id}`));
        await row.waitFor();
        assert.equal(await row.locator('[data-testid^="session-current-"]').count(), 0);
        await page.locator('[data-testid^="session-current-"]').getByText('This device').waitFor();
        await page.locator(byTestId(`session-signout-${otherSession.id}`)).click();
        await expectToast(page, 'Session signed out');
        await row.waitFor({ state: 'detached' });

        // The second browser's next call is refused: back to /auth.
        await other.page.reload();
        await waitForPath(other.page, '/auth');
        assert.equal(await storage(other.page, 'token'), null);
        assert.deepEqual(other.pageErrors.map(String), []);
      } finally {
        await other.close();
      }

      // Every other session (the API client's sign-in): ended at once; this one stays.
      await page.locator(byTestId('sessions-revoke-others')).click();
      await page.locator(byTestId('sessions-revoke-others-dialog-confirm')).click();
      await expectToast(page, 'Every other session is signed out');
      const apiMe = await fetch(`${server.baseURL}/api/auth/me`, { headers: { Authorization: `Bearer ${c.token}` } });
      assert.equal(apiMe.status, 401);
      const selfMe = await fetch(`${server.baseURL}/api/auth/me`, { headers: { Authorization: `Bearer ${await storage(page, 'token')}` } });
      assert.equal(selfMe.status, 200);
      // The backup code is spent.
      const challenge = await (await fetch(`${server.baseURL}/api/auth/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: c.email, password: c.password }),
      })).json();
      assert.equal(challenge.two_factor_required, true);
      const reuse = await fetch(`${server.baseURL}/api/auth/2fa/verify`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ challenge: challenge.challenge, code: backupCodes[0] }),
      });
      assert.equal(reuse.status, 401);
    });
  });

  test('an admin deposits into a customer account from the Users screen; a withdrawal over the balance is refused in the form', async () => {
    const c = await newCustomer(server.baseURL, 'Dora Deposit');
    const account = await openAccount(c, 0);
    await scenario('admin deposit', async (page) => {
      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, ADMIN);
      await page.locator(byTestId('screen-admin-dashboard')).waitFor();
      await page.goto(`${server.baseURL}/users`);
      await page.locator(byTestId(`user-funds-${c.user.id}`)).click();
      await page.locator(byTestId(`user-deposit-${c.user.id}`)).click();
      await page.locator(byTestId('funds-modal')).getByText('Deposit to Dora Deposit').waitFor();
      const select = page.locator(`select${byTestId('funds-account')}`);
      await select.waitFor();
      assert.match((await select.locator('option:checked').textContent()) ?? '', new RegExp(`^${account.account_number} · .* · \\$0\\.00$`));
      await page.locator(byTestId('funds-amount')).fill('125.50');
      await page.locator(byTestId('funds-description')).fill('Cash at the counter');
      await page.locator(byTestId('funds-submit')).click();
      await expectToast(page, `Deposited $125.50 into ${account.account_number}`);
      await page.locator(byTestId('funds-modal')).waitFor({ state: 'detached' });

      // The balance shows it, in the admin's view and the customer's.
      await page.locator(byTestId(`user-funds-${c.user.id}`)).click();
      await page.locator(byTestId(`user-withdraw-${c.user.id}`)).click();
      await page.locator(`select${byTestId('funds-account')} option:checked`).filter({ hasText: '$125.50' }).waitFor({ state: 'attached' });
      const mine = await c.client.get('/user/accounts');
      assert.equal(mine.find((a) => a.account_number === account.account_number).balance, 125.5);
      const history = await c.client.get(`/user/transactions/history?account_id=${account.account_number}`);
      assert.equal(history.data[0].description, 'Cash at the counter');
      assert.equal(history.data[0].transaction_type, 'CREDIT');

      // More than the balance: the server's sentence, in the form.
      await page.locator(byTestId('funds-amount')).fill('1000');
      await page.locator(byTestId('funds-submit')).click();
      await page.locator(byTestId('funds-error')).getByText('Insufficient funds').waitFor();
      await page.locator(byTestId('funds-cancel')).click();
    });

    // The customer sees it on Account Registration.
    await scenario('deposit seen by the customer', async (page) => {
      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, c);
      await page.locator(byTestId('shell')).waitFor();
      await page.goto(`${server.baseURL}/account-registration`);
      await page.locator(byTestId('accounts-table')).getByText('$125.50').waitFor();
    });
  });

  test('payee saved, a transfer scheduled seconds ahead runs and notifies, statements downloaded as CSV and PDF', async () => {
    const payer = await newCustomer(server.baseURL, 'Sam Scheduler');
    const payerAccount = await openAccount(payer, 100);
    const payee = await newCustomer(server.baseURL, 'Pat Payee');
    const payeeAccount = await openAccount(payee, 0);

    await scenario('payees, scheduled transfer, statements', async (page) => {
      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, payer);
      await page.locator(byTestId('shell')).waitFor();
      await page.locator(`${byTestId('notifications-button')}[data-live="open"]`).waitFor();

      // Save as payee from the transfer form: the number is looked up, then saved with a nickname.
      await page.goto(`${server.baseURL}/transfer-funds`);
      await page.locator(byTestId('transfer-open')).click();
      await page.locator(byTestId('transfer-to')).fill(payeeAccount.account_number);
      await page.locator(byTestId('transfer-recipient-name')).getByText('Pat Payee').waitFor();
      await selectContaining(page, 'transfer-from', payerAccount.account_number);
      await page.locator(byTestId('transfer-limit-used')).getByText('Used today: $0.00 of $10,000.00').waitFor();
      await page.locator(byTestId('transfer-save-payee-nickname')).fill('Pat');
      await page.locator(byTestId('transfer-save-payee-submit')).click();
      await expectToast(page, 'Payee saved');
      await page.keyboard.press('Escape');
      await page.locator(byTestId('transfer-modal')).waitFor({ state: 'detached' });
      await page.locator(byTestId('transfer-tab-payees')).click();
      const payeeRow = page.locator(byTestId('payees-table')).getByText('Pat Payee');
      await payeeRow.waitFor();
      const saved = await payer.client.get('/user/payees');
      assert.deepEqual(saved.map((p) => [p.nickname, p.account_number, p.holder_name]), [['Pat', payeeAccount.account_number, 'Pat Payee']]);

      // Schedule a single transfer to the payee, for this minute: it runs a few seconds later.
      await page.locator(byTestId('transfer-tab-scheduled')).click();
      await page.locator(byTestId('scheduled-table')).getByText('No scheduled transfers.').waitFor();
      await page.locator(byTestId('schedule-open')).click();
      await page.locator(byTestId('schedule-modal')).waitFor();
      await selectContaining(page, 'schedule-from', payerAccount.account_number);
      await selectContaining(page, 'schedule-payee', 'Pat');
      await page.locator(byTestId('schedule-recipient-name')).getByText('Pat Payee').waitFor();
      assert.equal(await page.locator(byTestId('schedule-to')).inputValue(), payeeAccount.account_number);
      await page.locator(byTestId('schedule-amount')).fill('3');
      await page.locator(byTestId('schedule-description')).fill('e2e scheduled');
      const thisMinute = await page.evaluate(() => {
        const d = new Date();
        const p = (n) => String(n).padStart(2, '0');
        return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
      });
      await page.locator(byTestId('schedule-first-run')).fill(thisMinute);
      await page.locator(byTestId('schedule-submit')).click();
      await expectToast(page, 'Transfer scheduled');
      const [series] = await payer.client.get('/user/scheduled-transfers');
      assert.equal(series.frequency, 'once');
      const ahead = Date.parse(series.next_run_at) - Date.now();
      assert.ok(ahead > -2_000 && ahead < 15_000, `the first run is seconds ahead (${ahead} ms)`);

      // The run's notification arrives live; the list follows (completed), and its run is listed.
      const message = `Scheduled transfer of $3.00 to account ${payeeAccount.account_number} succeeded`;
      await page.locator('[data-testid^="toast-"]', { hasText: message }).first().waitFor({ state: 'visible', timeout: 30_000 });
      await page.locator(byTestId(`schedule-status-${series.id}`)).getByText('completed').waitFor();
      await page.locator(byTestId(`schedule-runs-${series.id}`)).click();
      await page.locator(byTestId('schedule-runs-table')).getByText('succeeded').waitFor();
      await page.keyboard.press('Escape');
      const received = await payee.client.get('/user/accounts');
      assert.equal(received[0].balance, 3);

      // Statements of this month: the CSV's header line, then a PDF.
      await page.goto(`${server.baseURL}/transaction-history?account_id=${payerAccount.account_number}`);
      await page.locator(byTestId('statement-open')).click();
      await page.locator(byTestId('statement-modal')).waitFor();
      let downloading = page.waitForEvent('download');
      await page.locator(byTestId('statement-submit')).click();
      const csv = await downloading;
      assert.match(csv.suggestedFilename(), /\.csv$/);
      const csvText = readFileSync(await csv.path(), 'utf8');
      assert.equal(csvText.split(/\r?\n/)[0], 'date,description,type,amount,balance,counterparty');
      assert.match(csvText, /e2e scheduled/);
      await expectToast(page, 'Statement downloaded');

      await page.locator(byTestId('statement-open')).click();
      await selectContaining(page, 'statement-format', 'PDF');
      downloading = page.waitForEvent('download');
      await page.locator(byTestId('statement-submit')).click();
      const pdf = await downloading;
      assert.match(pdf.suggestedFilename(), /\.pdf$/);
      assert.equal(readFileSync(await pdf.path()).subarray(0, 4).toString('latin1'), '%PDF');
    });
  });

  test('access tokens: create one in Security, a program reads with it for its scope only; revoke it and it stops', async () => {
    const c = await newCustomer(server.baseURL, 'Toby Token');
    await openAccount(c, 50);
    await scenario('access tokens', async (page) => {
      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, c);
      await page.locator(byTestId('shell')).waitFor();
      await page.locator(byTestId('profile-button')).click();
      await page.locator(byTestId('menu-security')).click();
      await waitForPath(page, '/security');
      await page.locator(byTestId('access-tokens-empty')).waitFor();

      await page.locator(byTestId('access-token-create')).click();
      await page.locator(byTestId('access-token-name')).fill('Budget script');
      await page.locator(byTestId('access-token-scope-accounts:read')).click();
      await page.locator(byTestId('access-token-password')).fill(c.password);
      await page.locator(byTestId('access-token-submit')).click();
      const token = (await page.locator(byTestId('access-token-text')).textContent())?.trim();
      assert.match(token ?? '', /^mrd_pat_/);

      const call = (p) => fetch(`${server.baseURL}/api${p}`, { headers: { Authorization: `Bearer ${token}` } });
      assert.equal((await call('/user/accounts')).status, 200);
      const refused = await call('/user/transactions/history');
      assert.equal(refused.status, 403);
      assert.equal((await refused.json()).code, 'insufficient_scope');

      await page.locator(byTestId('access-token-done')).click();
      await page.locator('[data-testid^="access-token-revoke-"]').first().click();
      await expectToast(page, 'Access token "Budget script" revoked');
      await page.locator(byTestId('access-tokens-empty')).waitFor();
      assert.equal((await call('/user/accounts')).status, 401);
    });
  });

  test('a connected app: the consent page names it and its scopes, one account picked, the app reads only it; Disconnect ends it', async () => {
    const adminToken = (await api(server.baseURL).post('/auth/login', ADMIN)).token;
    const redirect = `${server.baseURL}/budget-callback`;
    const app = await api(server.baseURL, adminToken).post('/admin/oauth-clients', { name: 'Budget Buddy', redirect_uris: [redirect], public: true });
    const c = await newCustomer(server.baseURL, 'Cora Consent');
    const picked = await openAccount(c, 80);
    const other = await openAccount(c, 20);
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorize = new URL(`${server.baseURL}/oauth/authorize`);
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: app.client_id, redirect_uri: redirect, scope: 'accounts:read transactions:read',
      state: 'st-42', code_challenge: challenge, code_challenge_method: 'S256' })) {
      authorize.searchParams.set(k, v);
    }

    await scenario('connected app', async (page) => {
      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, c);
      await page.locator(byTestId('shell')).waitFor();
      // The app sends the customer to Meridian, which shows its consent page.
      await page.goto(authorize.href);
      await page.waitForFunction(() => location.pathname === '/consent', undefined, { timeout: 15_000 });
      assert.match((await page.locator(byTestId('consent-app')).textContent()) ?? '', /Budget Buddy wants to connect/);
      assert.equal((await page.locator(byTestId('consent-scope-accounts:read')).textContent())?.trim(), '• See your accounts and their balances');
      await page.locator(byTestId('consent-scope-transactions:read')).waitFor();
      await page.locator(byTestId(`consent-account-${picked.account_number}`)).click();
      await page.locator(byTestId('consent-allow')).click();
      await page.waitForFunction((r) => location.href.startsWith(r), redirect, { timeout: 15_000 });
      const back = new URL(page.url());
      assert.equal(back.searchParams.get('state'), 'st-42');
      const code = back.searchParams.get('code');
      assert.ok(code, 'the app gets a code');

      // The app exchanges it (PKCE) and reads: only the account picked.
      const res = await fetch(`${server.baseURL}/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirect, client_id: app.client_id, code_verifier: verifier }),
      });
      assert.equal(res.status, 200);
      const { access_token: token } = await res.json();
      const accounts = await (await fetch(`${server.baseURL}/api/user/accounts`, { headers: { Authorization: `Bearer ${token}` } })).json();
      assert.deepEqual(accounts.map((a) => a.account_number), [picked.account_number]);
      const hidden = await fetch(`${server.baseURL}/api/user/transactions/history?account_id=${other.account_number}`, { headers: { Authorization: `Bearer ${token}` } });
      assert.equal(hidden.status, 404);

      // Security lists it; Disconnect ends every token of it.
      await page.goto(`${server.baseURL}/security`);
      const row = page.locator('[data-testid^="connected-app-"]', { hasText: 'Budget Buddy' }).first();
      await row.waitFor();
      await page.locator('[data-testid^="connected-app-disconnect-"]').first().click();
      await expectToast(page, 'Budget Buddy is disconnected');
      await page.locator(byTestId('connected-apps-empty')).waitFor();
      assert.equal((await fetch(`${server.baseURL}/api/user/accounts`, { headers: { Authorization: `Bearer ${token}` } })).status, 401);
    });
  });

  test('unknown URLs show the error page; the layout works at 390px', async () => {
    await scenario('not found and narrow', async (page) => {
      await page.goto(`${server.baseURL}/no-such-page`);
      await page.getByText('Unexpected Application Error!').waitFor();
      assert.equal((await page.locator(byTestId('error-detail')).textContent())?.trim(), '404 Not Found');

      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, ALICE);
      await page.locator(byTestId('shell')).waitFor();
      const width = async () => (await page.locator(byTestId('sidebar')).boundingBox())?.width;
      // Below 768px no rail: the sidebar is a drawer, closed.
      assert.equal(await page.locator(byTestId('sidebar')).count(), 0);
      assert.equal(await page.locator(byTestId('sidebar-backdrop')).count(), 0);
      await page.locator(byTestId('sidebar-toggle')).click();
      await page.locator(byTestId('sidebar-backdrop')).waitFor();
      assert.equal(await width(), 240);
      assert.equal(await page.locator(byTestId('sidebar')).getAttribute('data-state'), 'expanded');
      // A click outside (on the dimmed content) closes it.
      await page.mouse.click(360, 400);
      await page.locator(byTestId('sidebar-backdrop')).waitFor({ state: 'detached' });
      assert.equal(await page.locator(byTestId('sidebar')).count(), 0);
      // Escape closes it too.
      await page.locator(byTestId('sidebar-toggle')).click();
      await page.locator(byTestId('sidebar-drawer')).waitFor();
      await page.keyboard.press('Escape');
      await page.locator(byTestId('sidebar-drawer')).waitFor({ state: 'detached' });
      // Wider than 768px: expanded.
      await page.setViewportSize({ width: 1024, height: 800 });
      await page.waitForFunction(() => document.querySelector('[data-testid="sidebar"]')?.getBoundingClientRect().width === 240);
      // No horizontal overflow at 390px.
      await page.setViewportSize({ width: 390, height: 800 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
      assert.equal(overflow, false);
      assert.ok(path(page).startsWith('/'));
    }, { viewport: { width: 390, height: 844 } });
  });
});

// Issue 21, "A bank's books": exchange, corrections, four eyes, interest (contract §8).
describe("a bank's books", () => {
  /** A balance of one of a customer's accounts, as the API says. */
  const balanceOf = async (customer, number) => (await customer.client.get('/user/accounts')).find((a) => a.account_number === number).balance;

  test('an admin sets EUR/USD on Rates; a customer exchanges USD into EUR with the quote on screen, then confirmed', async () => {
    const c = await newCustomer(server.baseURL, 'Xena Exchange');
    const usd = await openAccount(c, 100);
    const eur = await openTypedAccount(c, { currency: 'EUR', balance: 0 });

    await scenario('rates', async (page) => {
      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, ADMIN);
      await page.locator(byTestId('nav-rates')).click();
      await waitForPath(page, '/rates');
      assert.equal(await pageTitle(page), 'Rates');
      await page.locator(byTestId('interest-rates-table')).getByText('Savings').first().waitFor();
      await selectContaining(page, 'fx-rate-base', 'EUR');
      await selectContaining(page, 'fx-rate-quote', 'USD');
      await page.locator(byTestId('fx-rate-value')).fill('1.0842');
      await page.locator(byTestId('fx-rate-submit')).click();
      await expectToast(page, 'Rate set: 1 EUR = 1.0842 USD');
      await page.locator(byTestId('fx-rates-table')).getByText('1 EUR = 1.0842 USD').waitFor();
    });

    await scenario('exchange', async (page) => {
      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, c);
      await page.locator(byTestId('nav-exchange')).click();
      await waitForPath(page, '/exchange');
      assert.equal(await pageTitle(page), 'Currency Exchange');
      await selectContaining(page, 'exchange-from', usd.account_number);
      await selectContaining(page, 'exchange-to', eur.account_number);
      await page.locator(byTestId('exchange-amount')).fill('50');
      await page.locator(byTestId('exchange-quote')).click();
      await page.locator(byTestId('exchange-quote-card')).waitFor();
      // The inverse of EUR/USD, derived by the server.
      assert.match((await page.locator(byTestId('exchange-rate')).textContent()) ?? '', /^1 USD = 0\.92\d* EUR$/);
      assert.equal(await page.locator(byTestId('exchange-send')).textContent(), '$50.00');
      const received = (await page.locator(byTestId('exchange-receive')).textContent()) ?? '';
      assert.match(received, /^€4\d\.\d\d$/);
      assert.match((await page.locator(byTestId('exchange-countdown')).textContent()) ?? '', /^This rate is held for \d+ more seconds?\.$/);
      await page.locator(byTestId('exchange-confirm')).click();
      await expectToast(page, 'Exchange successful!');
      await page.locator(byTestId('exchange-quote-card')).waitFor({ state: 'detached' });
      assert.equal(await balanceOf(c, usd.account_number), 50);
      assert.equal(await balanceOf(c, eur.account_number), Number(received.slice(1)));
    });
  });

  test('an admin reverses a transfer with a reason; the row then says Reversed', async () => {
    const a = await newCustomer(server.baseURL, 'Rita Reverse');
    const from = await openAccount(a, 100);
    const b = await newCustomer(server.baseURL, 'Otto Other');
    const to = await openAccount(b, 0);
    await a.client.post('/user/money-transfer', { account_id: from.account_number, to_account_id: to.account_number, amount: 30, description: 'e2e to reverse' });
    const admin = await signInApi(server.baseURL, ADMIN);
    const { data } = await admin.client.get(`/admin/transactions/history?account_id=${from.account_number}`);
    const row = data.find((t) => t.description === 'e2e to reverse' && t.transaction_type === 'DEBIT');
    assert.ok(row, 'the transfer is in the admin history');

    await scenario('reverse', async (page) => {
      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, ADMIN);
      await page.locator(byTestId('screen-admin-dashboard')).waitFor();
      await page.goto(`${server.baseURL}/transaction-history?account_id=${from.account_number}`);
      await page.locator(byTestId(`history-reverse-${row.id}`)).click();
      await page.locator(byTestId('reverse-modal')).waitFor();
      // No reason: refused before anything is sent.
      await page.locator(byTestId('reverse-submit')).click();
      await page.locator(byTestId('reverse-modal')).getByText('A reason is required.').waitFor();
      await page.locator(byTestId('reverse-reason')).fill('Sent to the wrong account');
      await page.locator(byTestId('reverse-submit')).click();
      await expectToast(page, 'Transaction reversed');
      await page.locator(byTestId(`history-reversed-${row.id}`)).waitFor();
      assert.equal(await page.locator(byTestId(`history-reverse-${row.id}`)).count(), 0);
    });
    assert.equal(await balanceOf(a, from.account_number), 100);
    assert.equal(await balanceOf(b, to.account_number), 0);
  });

  test('four eyes: a deposit of 10,000 by one admin waits; a second admin (made with the CLI) approves it', async () => {
    const c = await newCustomer(server.baseURL, 'Fiona Foureyes');
    const account = await openAccount(c, 0);
    const second = { email: `${unique('admin2')}@example.test`, password: 'second-admin-12345' };
    await server.cli(['user', 'create', '--name', 'Second Admin', '--email', second.email, '--phone', '+1 555 0102', '--password', second.password, '--role', 'Admin']);
    const maker = await signInApi(server.baseURL, ADMIN);

    let approvalId;
    await scenario('four eyes: asked', async (page) => {
      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, ADMIN);
      await page.locator(byTestId('screen-admin-dashboard')).waitFor();
      await page.goto(`${server.baseURL}/users`);
      await page.locator(byTestId(`user-funds-${c.user.id}`)).click();
      await page.locator(byTestId(`user-deposit-${c.user.id}`)).click();
      await page.locator(byTestId('funds-account')).waitFor();
      await page.locator(byTestId('funds-amount')).fill('10000');
      await page.locator(byTestId('funds-submit')).click();
      await expectToast(page, "Waiting for a second administrator's approval");
      assert.equal(await balanceOf(c, account.account_number), 0);
      const pending = await maker.client.get('/admin/approvals?status=pending');
      const mine = pending.find((p) => p.summary.includes(account.account_number));
      assert.ok(mine, `an approval names ${account.account_number}: ${JSON.stringify(pending)}`);
      approvalId = mine.id;
      // The one who asked cannot decide it.
      await page.locator(byTestId('nav-approvals')).click();
      await waitForPath(page, '/approvals');
      await page.locator(byTestId(`approval-mine-${approvalId}`)).waitFor();
      assert.equal(await page.locator(byTestId(`approval-approve-${approvalId}`)).count(), 0);
    });

    await scenario('four eyes: approved', async (page) => {
      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, second);
      await page.locator(byTestId('shell')).waitFor();
      await page.locator(byTestId('nav-approvals-count')).waitFor();
      await page.locator(byTestId('nav-approvals')).click();
      await waitForPath(page, '/approvals');
      await page.locator(byTestId('approvals-table')).getByText(account.account_number, { exact: false }).first().waitFor();
      await page.locator(byTestId(`approval-approve-${approvalId}`)).click();
      await expectToast(page, 'Approved successfully');
      await page.locator(byTestId(`approval-approve-${approvalId}`)).waitFor({ state: 'detached' });
    });
    assert.equal(await balanceOf(c, account.account_number), 10000);
  });

  test('interest accrued on a Savings account is shown (meridian interest run on the data dir)', async () => {
    const c = await newCustomer(server.baseURL, 'Ivy Interest');
    const savings = await openTypedAccount(c, { currency: 'USD', typeName: 'Savings', balance: 1000 });
    // Every day up to the day after tomorrow (UTC): the day it opened included.
    const through = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    await server.cli(['interest', 'run', '--through', through]);

    await scenario('interest', async (page) => {
      await page.goto(`${server.baseURL}/auth`);
      await signIn(page, c);
      await page.locator(byTestId('shell')).waitFor();
      await page.goto(`${server.baseURL}/account-registration`);
      const cell = page.locator(byTestId(`account-interest-${savings.account_number}`));
      await cell.waitFor();
      const text = (await cell.textContent()) ?? '';
      const m = text.match(/^2\.00 % a year · accrued \$(\d+\.\d{4,6})/);
      assert.ok(m, `the interest line: ${text}`);
      assert.ok(Number(m[1]) > 0, `accrued is more than 0: ${text}`);
    });
  });
});
