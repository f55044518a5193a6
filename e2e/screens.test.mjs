// The browser walk of every screen: the real bin/meridian on a fresh data dir
// (demo data seeded on first start), Debian's Chromium via playwright-core.
// Signs in through the UI as a customer and as an admin, visits every route of
// the spec, triggers the toasts of spec §8 the UI can reach, runs axe-core on
// every screen, checks for page-wide horizontal scroll at 390px and writes
// screenshots (1280×800 and 390×844, light and dark) into screenshots/.
//
//   node e2e/screens.test.mjs        (after `make build`)
//
// Exits non-zero with a summary when anything fails.
import assert from 'node:assert/strict';

import { accountNumber, api, newCustomer, unique } from './lib/api.mjs';
import { openBrowser } from './lib/browser.mjs';
import { startServer } from './lib/server.mjs';
import {
  ADMIN,
  ALICE,
  BOB,
  clearToasts,
  createRunner,
  currentPath,
  expectToast,
  isDisabled,
  runAxe,
  screenshot,
  scrollWidth,
  selectContaining,
  settle,
  signIn,
  tid,
  waitForPath,
} from './screens/walk.mjs';

const CUSTOMER_ROUTES = [
  { path: '/', screen: 'screen-user-dashboard', name: 'customer-dashboard', title: 'Dashboard' },
  { path: '/account-registration', screen: 'screen-account-registration', name: 'account-registration', title: 'Account Registration' },
  { path: '/transfer-funds', screen: 'screen-transfer-funds', name: 'transfer-funds', title: 'Transfer Funds' },
  { path: '/money-request', screen: 'screen-money-request', name: 'money-request', title: 'Money Requests' },
  { path: '/transaction-history?account_id=100200300', screen: 'screen-transaction-history', name: 'transaction-history', title: 'Transaction History' },
  // States inside pages (tabs, forms): `open` brings the page there before the checks.
  { path: '/transfer-funds', screen: 'screen-transfer-funds', name: 'transfer-funds-payees', title: 'Transfer Funds', open: (page) => openState(page, ['transfer-tab-payees'], 'payees-table') },
  { path: '/transfer-funds', screen: 'screen-transfer-funds', name: 'transfer-funds-payee-add', title: 'Transfer Funds', open: (page) => openState(page, ['transfer-tab-payees', 'payee-add-open'], 'payee-add-modal') },
  { path: '/transfer-funds', screen: 'screen-transfer-funds', name: 'transfer-funds-scheduled', title: 'Transfer Funds', open: (page) => openState(page, ['transfer-tab-scheduled'], 'scheduled-table') },
  { path: '/transfer-funds', screen: 'screen-transfer-funds', name: 'transfer-funds-schedule-form', title: 'Transfer Funds', open: (page) => openState(page, ['transfer-tab-scheduled', 'schedule-open'], 'schedule-modal') },
  {
    path: '/transfer-funds',
    screen: 'screen-transfer-funds',
    name: 'transfer-funds-form-payee',
    title: 'Transfer Funds',
    open: async (page) => {
      await openState(page, ['transfer-open'], 'transfer-payee');
      await selectContaining(page, 'transfer-from', '100200300');
      await selectContaining(page, 'transfer-payee', 'Bob');
      await page.locator(tid('transfer-limit-used')).waitFor();
    },
  },
  { path: '/transaction-history?account_id=100200300', screen: 'screen-transaction-history', name: 'statement-form', title: 'Transaction History', open: (page) => openState(page, ['statement-open'], 'statement-modal') },
  { path: '/notifications', screen: 'screen-notifications', name: 'customer-notifications', title: 'Notifications' },
  { path: '/exchange', screen: 'screen-exchange', name: 'exchange', title: 'Currency Exchange' },
  { path: '/settings', screen: 'screen-settings', name: 'customer-settings', title: 'Settings' },
  { path: '/security', screen: 'screen-security', name: 'customer-security', title: 'Security' },
];
const ADMIN_ROUTES = [
  { path: '/', screen: 'screen-admin-dashboard', name: 'admin-dashboard', title: 'Admin Dashboard' },
  { path: '/users', screen: 'screen-users', name: 'users', title: 'User Management' },
  { path: '/users', screen: 'screen-users', name: 'users-daily-limit', title: 'User Management', open: (page) => openState(page, ['user-limit-2'], 'user-limit-modal') },
  { path: '/Assign', screen: 'screen-assign', name: 'assign', title: 'Role Assignment' },
  { path: '/logs', screen: 'screen-logs', name: 'logs', title: 'System Logs' },
  { path: '/notifications', screen: 'screen-notifications', name: 'admin-notifications', title: 'Notifications' },
  { path: '/approvals', screen: 'screen-approvals', name: 'approvals', title: 'Approvals' },
  { path: '/rates', screen: 'screen-rates', name: 'rates', title: 'Rates' },
  {
    path: '/transaction-history',
    screen: 'screen-transaction-history',
    name: 'admin-reverse',
    title: 'Transaction History',
    open: async (page) => {
      // The first row's Reverse (its id is the row's), then the dialog once its fade-in is over.
      await page.locator('[data-testid^="history-reverse-"]').first().click();
      await openState(page, [], 'reverse-modal');
    },
  },
  { path: '/settings', screen: 'screen-settings', name: 'admin-settings', title: 'Settings' },
  { path: '/security', screen: 'screen-security', name: 'admin-security', title: 'Security' },
];
const VIEWPORTS = [
  { label: '1280', viewport: { width: 1280, height: 800 } },
  { label: '390', viewport: { width: 390, height: 844 } },
];
const THEMES = ['light', 'dark'];

const runner = createRunner();
const { step, notes } = runner;
let server;

/** A fresh browser for one scenario; uncaught page errors fail it. */
async function withBrowser(label, options, fn) {
  const browser = await openBrowser(options);
  if (options?.theme) {
    await browser.context.addInitScript((theme) => window.localStorage.setItem('vite-ui-theme', theme), options.theme);
  }
  try {
    await fn(browser.page, browser);
  } catch (err) {
    const file = await screenshot(browser.page, `FAILED-${label.replace(/[^a-z0-9]+/gi, '-')}`).catch(() => null);
    err.message += `\n(url: ${browser.page.url()}${file ? `; screenshot: ${file}` : ''})`;
    throw err;
  } finally {
    const errors = browser.pageErrors.map((e) => `${label}: ${e.stack ?? e}`);
    notes.pageErrors.push(...errors);
    await browser.close();
    assert.deepEqual(errors, [], `uncaught page errors in "${label}"`);
  }
}

async function toast(page, text, type) {
  await expectToast(page, text, type);
  notes.toasts.push(text);
}

const title = async (page) => (await page.locator(tid('page-title')).first().textContent())?.trim();

/** Clicks through `clicks` (testIDs), then waits for `shown` and a quiet page. */
async function openState(page, clicks, shown) {
  for (const id of clicks) await page.locator(tid(id)).first().click();
  await page.locator(tid(shown)).first().waitFor({ state: 'visible' });
  await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => undefined);
  await page.waitForTimeout(250);
}

async function main() {
  console.log('starting bin/meridian on a fresh data dir...');
  server = await startServer();
  const base = server.baseURL;
  console.log(`server at ${base}`);

  // ---------------------------------------------------------------- sign in / register
  await step('auth: login failure, register success and failure, login success', () =>
    withBrowser('auth', {}, async (page) => {
      await page.goto(`${base}/auth`);
      await signIn(page, base, { email: ALICE.email, password: 'wrong-password' }, { expectSuccess: false });
      await toast(page, 'Invalid credentials', 'error');
      const email = `${unique('walk')}@example.test`;
      await page.locator(tid('tab-register')).click();
      await page.locator(tid('register-fullname')).fill('Walter Walk');
      await page.locator(tid('register-email')).fill(email);
      await page.locator(tid('register-phone')).fill('+15550177');
      await page.locator(tid('register-password')).fill('walter-pass-123');
      await page.locator(tid('register-submit')).click();
      await toast(page, 'Registration successful!', 'success');
      await page.locator(tid('tab-register')).click();
      await page.locator(tid('register-fullname')).fill('Walter Again');
      await page.locator(tid('register-email')).fill(email);
      await page.locator(tid('register-phone')).fill('+15550177');
      await page.locator(tid('register-password')).fill('walter-pass-123');
      await page.locator(tid('register-submit')).click();
      await toast(page, 'An account with this email already exists', 'error');
      await page.locator(tid('tab-login')).click();
      await signIn(page, base, ALICE);
      await toast(page, 'Login successful!', 'success');
      await waitForPath(page, '/');
    }),
  );

  // ---------------------------------------------------------------- customer toasts
  await step('customer: account created, refused delete, updated, deleted; duplicate number refused', () =>
    withBrowser('accounts', {}, async (page) => {
      await signIn(page, base, ALICE);
      await page.goto(`${base}/account-registration`);
      await settle(page, 'screen-account-registration');
      const number = accountNumber();
      await page.locator(tid('account-add')).click();
      await page.locator(tid('account-number')).fill(number);
      await page.locator(tid('account-balance')).fill('10');
      await selectContaining(page, 'account-type', 'USD');
      await page.locator(tid('account-save')).click();
      await toast(page, 'Account created successfully', 'success');
      await page.locator(tid(`account-delete-${number}`)).waitFor();

      // Same number again: the server's message.
      await page.locator(tid('account-add')).click();
      await page.locator(tid('account-number')).fill(number);
      await selectContaining(page, 'account-type', 'USD');
      await page.locator(tid('account-save')).click();
      await toast(page, 'Account number already exists', 'error');
      await page.locator(tid('account-cancel')).click();

      // Delete with a balance: refused.
      await page.locator(tid(`account-delete-${number}`)).click();
      await page.getByText('Are you sure you want to delete this account?').waitFor();
      await page.locator(tid('account-delete-dialog-confirm')).click();
      await toast(page, 'Account balance must be zero to close it', 'error');

      await page.locator(tid(`account-edit-${number}`)).click();
      await page.locator(tid('account-balance')).fill('0');
      await page.locator(tid('account-save')).click();
      await toast(page, 'Account updated successfully', 'success');

      await page.locator(tid(`account-delete-${number}`)).click();
      await page.locator(tid('account-delete-dialog-confirm')).click();
      await toast(page, 'Account deleted successfully', 'success');
      await page.locator(tid(`account-delete-${number}`)).waitFor({ state: 'detached' });
    }),
  );

  await step('customer: transfer success (recipient name shown) and failure', () =>
    withBrowser('transfer', {}, async (page) => {
      await signIn(page, base, ALICE);
      await page.goto(`${base}/transfer-funds`);
      await settle(page, 'screen-transfer-funds');
      await page.locator(tid('transfer-open')).click();
      await selectContaining(page, 'transfer-from', '100200300');
      await page.locator(tid('transfer-amount')).fill('1.25');
      await page.locator(tid('transfer-to')).fill('200300400');
      await page.locator(tid('transfer-recipient-name')).getByText('Bob Jones').waitFor();
      await page.locator(tid('transfer-note')).fill('walk transfer');
      await page.locator(tid('transfer-submit')).click();
      await toast(page, 'Transfer successful!', 'success');
      // At 1280 px the toast sits below the header: the bell and the avatar stay clear.
      const shown = await page.locator('[data-testid^="toast-"]').first().boundingBox();
      for (const id of ['notifications-button', 'profile-button']) {
        const b = await page.locator(tid(id)).boundingBox();
        const overlaps = shown.x < b.x + b.width && b.x < shown.x + shown.width && shown.y < b.y + b.height && b.y < shown.y + shown.height;
        assert.equal(overlaps, false, `the toast covers ${id}`);
      }

      await page.locator(tid('transfer-open')).click();
      await selectContaining(page, 'transfer-from', '100200300');
      await page.locator(tid('transfer-amount')).fill('999999');
      await page.locator(tid('transfer-to')).fill('200300400');
      await page.locator(tid('transfer-submit')).click();
      await toast(page, 'Insufficient funds', 'error');
    }),
  );

  await step('customer: money request created, accepted and rejected', async () => {
    // Bob asks Alice twice (via the API), so Alice has two requests to answer.
    const { token } = await api(base).post('/auth/login', BOB);
    const bob = api(base, token);
    const one = await bob.post('/user/money-request', { requester_id: '200300400', recipient_id: '100200300', amount: 3, description: 'walk accept' });
    const two = await bob.post('/user/money-request', { requester_id: '200300400', recipient_id: '100200300', amount: 4, description: 'walk decline' });
    await withBrowser('money requests', {}, async (page) => {
      await signIn(page, base, ALICE);
      await page.goto(`${base}/money-request`);
      await settle(page, 'screen-money-request');
      await page.locator(tid('request-new')).click();
      await selectContaining(page, 'request-from', '100200300');
      await page.locator(tid('request-to')).fill('200300400');
      await page.locator(tid('request-amount')).fill('2.50');
      await page.locator(tid('request-description')).fill('walk request');
      await page.locator(tid('request-submit')).click();
      await toast(page, 'Money request created successfully!', 'success');

      await page.locator(tid(`request-menu-${one.data.ID}`)).click();
      await page.locator(tid(`request-accept-${one.data.ID}`)).click();
      await toast(page, 'Money request accepted!', 'success');
      await page.locator(tid(`request-status-${one.data.ID}`)).getByText('ACCEPTED').waitFor();

      await page.locator(tid(`request-menu-${two.data.ID}`)).click();
      await page.locator(tid(`request-decline-${two.data.ID}`)).click();
      await toast(page, 'Money request rejected!', 'success');
      await page.locator(tid(`request-status-${two.data.ID}`)).getByText('REJECTED').waitFor();
    });
  });

  await step('customer: notifications tabs, New badges and mark-read', () =>
    withBrowser('notifications', {}, async (page) => {
      await signIn(page, base, ALICE);
      await page.goto(`${base}/notifications`);
      await settle(page, 'screen-notifications');
      assert.equal(await title(page), 'Notifications');
      const rows = page.locator(tid('notification-row'));
      await rows.first().waitFor();
      const total = await rows.count();
      assert.match((await page.locator(tid('notifications-total')).textContent()) ?? '', new RegExp(`^${total} notifications?$`));
      assert.equal(await page.locator(tid('notifications-tab-all')).getAttribute('aria-selected'), 'true');

      await page.locator(tid('notifications-tab-requests')).click();
      assert.equal(await page.locator(tid('notifications-tab-requests')).getAttribute('aria-selected'), 'true');
      for (const text of await rows.allTextContents()) assert.match(text.toLowerCase(), /request/);
      await page.locator(tid('notifications-tab-alerts')).click();
      for (const text of await rows.allTextContents()) assert.match(text.toLowerCase(), /expired|declined/);
      await page.locator(tid('notifications-tab-all')).click();

      // Relative times as the spec words them.
      for (const t of await page.locator(tid('notification-time')).allTextContents()) {
        assert.match(t, /^(\d+ minutes? ago|\d+ hours? ago|[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2} [AP]M)$/, `time "${t}"`);
      }
      // Mark-read: the first New item loses its badge, on the server too.
      const unread = rows.filter({ has: page.locator(tid('notification-new-badge')) });
      const before = await unread.count();
      assert.ok(before > 0, 'Alice has unread notifications (seed + this walk)');
      const markRead = page.waitForResponse((r) => /\/api\/user\/notifications\/\d+\/read$/.test(r.url()) && r.request().method() === 'PUT');
      await unread.first().click();
      assert.equal((await markRead).status(), 204);
      await page.waitForFunction(
        (n) => document.querySelectorAll('[data-testid="notification-row"] [data-testid="notification-new-badge"]').length === n,
        before - 1,
      );
    }),
  );

  await step('customer: password reset failure then success (fresh customer)', async () => {
    const c = await newCustomer(base, 'Paula Password');
    await withBrowser('password reset', {}, async (page) => {
      await signIn(page, base, c);
      await page.locator(tid('profile-button')).click();
      await page.locator(tid('menu-password-reset')).click();
      await page.locator(tid('password-reset-old')).fill('not-my-password');
      await page.locator(tid('password-reset-new')).fill('paula-new-pass-1');
      await page.locator(tid('password-reset-submit')).click();
      await toast(page, 'The old password is incorrect', 'error');
      await page.locator(tid('password-reset-old')).fill(c.password);
      await page.locator(tid('password-reset-submit')).click();
      await toast(page, 'Password reset successful!', 'success');
    });
  });

  await step("customer on /users: 'Unauthorized access', then /", () =>
    withBrowser('unauthorized', {}, async (page) => {
      await signIn(page, base, ALICE);
      await page.goto(`${base}/users`);
      await toast(page, 'Unauthorized access', 'error');
      await waitForPath(page, '/');
      await page.goto(`${base}/Assign`);
      await toast(page, 'Unauthorized access', 'error');
      await waitForPath(page, '/');
    }),
  );

  // ---------------------------------------------------------------- admin toasts
  await step('admin: users search, deactivate/activate, self-deactivation refused', async () => {
    const target = await newCustomer(base, 'Tina Toggle');
    await withBrowser('admin users', {}, async (page) => {
      await signIn(page, base, ADMIN);
      await page.goto(`${base}/users`);
      await settle(page, 'screen-users');
      assert.equal(await title(page), 'User Management');
      await page.locator(tid(`user-toggle-${target.user.id}`)).waitFor();

      await page.locator(tid('users-search')).fill('alice');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="users-table-row"]').length === 1);
      await page.locator(tid('users-table')).getByText('Alice Smith').waitFor();
      await page.locator(tid('users-search')).fill('555 0102');
      await page.locator(tid('users-table')).getByText('Bob Jones').waitFor();
      assert.equal(await page.locator(tid('users-table-row')).count(), 1);
      await page.locator(tid('users-search')).fill('');

      // At 1280 px: "Daily limit" on one line (as tall as the one-line Deactivate), and the money menu says what it holds.
      const limitBox = await page.locator(tid(`user-limit-${target.user.id}`)).boundingBox();
      const toggleBox = await page.locator(tid(`user-toggle-${target.user.id}`)).boundingBox();
      assert.ok(limitBox.height <= toggleBox.height + 1, `"Daily limit" wraps: ${limitBox.height}px against ${toggleBox.height}px`);
      const fundsBox = await page.locator(tid(`user-funds-${target.user.id}`)).boundingBox();
      assert.ok(fundsBox.height <= toggleBox.height + 1, `"Deposit / Withdraw" wraps: ${fundsBox.height}px against ${toggleBox.height}px`);
      assert.match((await page.locator(tid(`user-funds-${target.user.id}`)).textContent()) ?? '', /Deposit \/ Withdraw/);

      const toggle = page.locator(tid(`user-toggle-${target.user.id}`));
      assert.equal((await toggle.textContent())?.trim(), 'Deactivate');
      await toggle.click();
      await toast(page, 'User deactivated successfully', 'success');
      await page.locator(tid(`user-status-${target.user.id}`)).getByText('Inactive').waitFor();
      await toggle.getByText('Activate', { exact: true }).waitFor();
      await toggle.click();
      await toast(page, 'User activated successfully', 'success');
      await page.locator(tid(`user-status-${target.user.id}`)).getByText('Active', { exact: true }).waitFor();

      const me = JSON.parse(await page.evaluate(() => localStorage.getItem('user')));
      await page.locator(tid(`user-toggle-${me.id}`)).click();
      await toast(page, 'You cannot deactivate yourself', 'error');
    });
  });

  await step('admin: role assign disabled until chosen, assigned, refused', async () => {
    const target = await newCustomer(base, 'Rita Role');
    await withBrowser('admin assign', {}, async (page) => {
      await signIn(page, base, ADMIN);
      await page.goto(`${base}/Assign`);
      await settle(page, 'screen-assign');
      assert.equal(await title(page), 'Role Assignment');
      const submit = page.locator(tid(`assign-submit-${target.user.id}`));
      await submit.waitFor();
      assert.ok(await isDisabled(submit), 'Assign is disabled before a role is chosen');
      const select = page.locator(`select${tid(`assign-role-${target.user.id}`)}`);
      assert.deepEqual(await select.evaluate((el) => [...el.options].map((o) => o.textContent)), ['Select a role', 'Admin', 'User']);
      await selectContaining(page, `assign-role-${target.user.id}`, 'User');
      assert.equal(await isDisabled(submit), false, 'Assign is enabled once a role is chosen');
      await submit.click();
      await toast(page, 'Role assigned successfully', 'success');

      // The only admin giving up the role: refused.
      const me = JSON.parse(await page.evaluate(() => localStorage.getItem('user')));
      await selectContaining(page, `assign-role-${me.id}`, 'User');
      await page.locator(tid(`assign-submit-${me.id}`)).click();
      await toast(page, 'Failed to assign role', 'error');
    });
  });

  await step('admin: system logs with "load more"', () =>
    withBrowser('admin logs', {}, async (page) => {
      await signIn(page, base, ADMIN);
      await page.goto(`${base}/logs`);
      await settle(page, 'screen-logs');
      assert.equal(await title(page), 'System Logs');
      const rows = page.locator(tid('logs-table-row'));
      await rows.first().waitFor();
      const first = await rows.count();
      assert.ok(first > 0, 'audit rows shown');
      const more = page.locator(tid('logs-load-more'));
      if (await more.count()) {
        const next = page.waitForResponse((r) => r.url().includes('/api/admin/audit-logs') && r.url().includes('before='));
        await more.click();
        await next;
        await page.waitForFunction((n) => document.querySelectorAll('[data-testid="logs-table-row"]').length > n, first);
      } else {
        console.log('      (fewer audit rows than one page: "load more" not shown)');
      }
    }),
  );

  await step('keyboard: the controls of /users, /Assign, /logs and /notifications are reached with Tab', () =>
    withBrowser('keyboard', {}, async (page) => {
      await signIn(page, base, ADMIN);
      const reached = async (path, screenId, wanted) => {
        await page.goto(`${base}${path}`);
        await settle(page, screenId);
        const seen = new Set();
        for (let i = 0; i < 120 && wanted.some((w) => ![...seen].some((s) => w.test(s))); i++) {
          await page.keyboard.press('Tab');
          const id = await page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? '');
          if (id) seen.add(id);
        }
        const missing = wanted.filter((w) => ![...seen].some((s) => w.test(s)));
        assert.deepEqual(missing.map(String), [], `${path}: not reached by Tab (reached: ${[...seen].join(', ')})`);
      };
      await reached('/users', 'screen-users', [/^users-search$/, /^user-toggle-\d+$/, /^user-funds-\d+$/]);
      await reached('/Assign', 'screen-assign', [/^assign-role-\d+$/]);
      await reached('/logs', 'screen-logs', [/^logs-load-more$/]);
      await reached('/notifications', 'screen-notifications', [/^notifications-tab-all$/, /^notifications-tab-requests$/, /^notifications-tab-alerts$/]);
      // Enter on a focused tab switches the filter.
      await page.locator(tid('notifications-tab-alerts')).focus();
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.querySelector('[data-testid="notifications-tab-alerts"]')?.getAttribute('aria-selected') === 'true');
    }),
  );

  await step('keyboard: the Transfer Funds tabs, Schedule, Cancel and Download statement are reached with Tab', () =>
    withBrowser('keyboard customer', {}, async (page) => {
      await signIn(page, base, ALICE);
      const reach = async (wanted) => {
        const seen = new Set();
        for (let i = 0; i < 120 && wanted.some((w) => ![...seen].some((s) => w.test(s))); i++) {
          await page.keyboard.press('Tab');
          const id = await page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? '');
          if (id) seen.add(id);
        }
        const missing = wanted.filter((w) => ![...seen].some((s) => w.test(s)));
        assert.deepEqual(missing.map(String), [], `not reached by Tab (reached: ${[...seen].join(', ')})`);
      };
      await page.goto(`${base}/transfer-funds`);
      await settle(page, 'screen-transfer-funds');
      await reach([/^transfer-tab-payees$/, /^transfer-tab-scheduled$/]);
      // Enter on a focused tab opens it.
      await page.locator(tid('transfer-tab-scheduled')).focus();
      await page.keyboard.press('Enter');
      await page.locator(tid('scheduled-table')).waitFor();
      await reach([/^schedule-open$/, /^schedule-runs-\d+$/, /^schedule-cancel-\d+$/]);
      await page.locator(tid('transfer-tab-payees')).focus();
      await page.keyboard.press('Enter');
      await page.locator(tid('payees-table')).waitFor();
      await reach([/^payee-add-open$/, /^payee-delete-\d+$/]);
      await page.goto(`${base}/transaction-history?account_id=100200300`);
      await settle(page, 'screen-transaction-history');
      await reach([/^statement-open$/]);
    }),
  );
  // ---------------------------------------------------------------- Security: the setup state (QR code)
  await step('security: Tab reaches setup, the code field and Turn on; the setup state (QR code) passes axe, light and dark', async () => {
    const c = await newCustomer(base, 'Sam Security');
    for (const theme of THEMES) {
      await withBrowser(`security setup ${theme}`, { theme, colorScheme: theme }, async (page) => {
        await signIn(page, base, c);
        await page.goto(`${base}/security`);
        await settle(page, 'screen-security');
        const tabTo = async (wanted) => {
          const seen = new Set();
          for (let i = 0; i < 80 && wanted.some((w) => ![...seen].some((x) => w.test(x))); i++) {
            await page.keyboard.press('Tab');
            const id = await page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? '');
            if (id) seen.add(id);
          }
          const missing = wanted.filter((w) => ![...seen].some((x) => w.test(x)));
          assert.deepEqual(missing.map(String), [], `/security: not reached by Tab (reached: ${[...seen].join(', ')})`);
        };
        await tabTo([/^twofactor-setup-start$/]);
        await page.keyboard.press('Enter');
        await page.locator(`${tid('twofactor-qr')} svg`).waitFor();
        await tabTo([/^twofactor-code$/, /^twofactor-enable$/, /^twofactor-cancel$/]);
        await visit(page, { name: 'security-setup' }, `1280-${theme}`, '1280');
      });
    }
  });

  // ---------------------------------------------------------------- every screen: screenshots, axe, 390px
  for (const { label, viewport } of VIEWPORTS) {
    for (const theme of THEMES) {
      const combo = `${label}-${theme}`;
      await step(`visual ${combo}: /auth signed out`, () =>
        withBrowser(`visual ${combo} auth`, { viewport, theme, colorScheme: theme }, async (page) => {
          await page.goto(`${base}/auth`);
          await settle(page, 'auth-heading');
          await visit(page, { name: 'auth' }, combo, label);
        }),
      );
      for (const [role, who, routes] of [
        ['customer', ALICE, CUSTOMER_ROUTES],
        ['admin', ADMIN, ADMIN_ROUTES],
      ]) {
        await step(`visual ${combo}: ${role} screens`, () =>
          withBrowser(`visual ${combo} ${role}`, { viewport, theme, colorScheme: theme }, async (page) => {
            await signIn(page, base, who);
            await clearToasts(page);
            const problems = [];
            for (const route of routes) {
              try {
                await page.goto(`${base}${route.path}`);
                await settle(page, route.screen);
                assert.equal(currentPath(page), route.path);
                assert.equal(await title(page), route.title);
                if (route.open) await route.open(page);
                await visit(page, route, combo, label);
              } catch (err) {
                problems.push(`${route.path}: ${err.message.split('\n')[0]}`);
              }
            }
            if (problems.length) throw new Error(problems.join('\n'));
          }),
        );
      }
    }
  }
}

/** Screenshot, axe and (at 390px) the overflow check for the screen shown. */
async function visit(page, route, combo, label) {
  const screenName = `${route.name}-${combo}`;
  notes.screenshots.push(await screenshot(page, screenName));
  const axe = await runAxe(page);
  notes.axe.push({ screen: screenName, blocking: axe.blocking, other: axe.all.filter((v) => !axe.blocking.includes(v)).map((v) => `${v.id} (${v.impact})`) });
  const failures = [];
  if (axe.blocking.length) {
    failures.push(`axe: ${axe.blocking.map((v) => `${v.id} (${v.impact}, ${v.nodes.length} nodes: ${v.nodes.slice(0, 3).map((n) => n.target).join(' | ')})`).join('; ')}`);
  }
  if (label === '390') {
    const width = await scrollWidth(page);
    notes.overflow.push({ screen: screenName, width });
    if (width > 391) failures.push(`page-wide horizontal scroll at 390px: scrollWidth ${width}`);
  }
  if (failures.length) throw new Error(`${screenName}: ${failures.join('; ')}`);
}

let aborted = false;
try {
  await main();
} catch (err) {
  aborted = true;
  console.error(`walk aborted: ${err.stack ?? err}`);
} finally {
  await server?.stop().catch(() => undefined);
}
const ok = runner.summary() && !aborted;
if (aborted) console.log('RESULT: FAIL (the walk was aborted)');
process.exit(ok ? 0 : 1);
