/**
 * In Spanish, the sign-in, the dashboard and Transfer Funds (with its form
 * open) show no English sentence the catalog translates: every text of those
 * screens goes through i18n. (The browser walk, e2e/app.test.mjs, checks the
 * same pages of the real build.)
 */
import { act, fireEvent, screen } from './rtl';

import es from '../i18n/es.json';
import { setLanguage } from '../i18n';
import AuthScreen from '../screens/AuthScreen';
import UserDashboardScreen from '../screens/UserDashboardScreen';
import TransferFundsScreen from '../screens/TransferFundsScreen';
import { sessionStore } from '../state/session';
import { toast } from '../state/toast';
import { accounts, customer, renderScreen, requests, transactions } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

const realFetch = global.fetch;

// The chart (victory) is not under test.
jest.mock('../components/charts', () => ({ AreaChart: () => null }));

/** English texts whose Spanish differs (a word like "PDF" is the same in both). */
const ENGLISH = Object.entries(es as Record<string, string>)
  .filter(([key, value]) => !/_(one|other)$/.test(key) && !key.includes('{{') && key !== value && key.length > 2)
  .map(([key]) => key);

function englishLeft(): string[] {
  return ENGLISH.filter((text) => screen.queryAllByText(text).length > 0);
}

beforeEach(() => {
  setLanguage('es', 'es-ES');
  mockFetch({
    'GET /api/user/accounts': () => jsonResponse(200, accounts),
    'GET /api/user/transactions/history': () => jsonResponse(200, { data: transactions, next_cursor: null }),
    'GET /api/user/transactions/money-request': () => jsonResponse(200, requests),
    'GET /api/user/dashboard/transactions-summary': () =>
      jsonResponse(200, { data: { total_transactions: 2, pending_requests: 1, total_transfers: 1, total_sent_amount: 12.5, total_received_amount: 1000, by_currency: [] } }),
    'GET /api/user/dashboard/monthly-transactions': () => jsonResponse(200, []),
    'GET /api/user/limits': () => jsonResponse(200, [{ daily_transfer_limit: 10000, used_today: 12.5, currency: 'USD' }]),
    'GET /api/user/payees': () => jsonResponse(200, []),
    'GET /api/config': () => jsonResponse(200, { customer_funding: true, require_2fa_for_admins: false, lock_after_seconds: 300 }),
  });
});

afterEach(async () => {
  setLanguage('en');
  global.fetch = realFetch;
  act(() => toast.dismiss());
  await act(() => sessionStore.signOut());
});

it('the sign-in screen is all Spanish', async () => {
  renderScreen(AuthScreen);
  expect(await screen.findByText('Bienvenido a Meridian Bank')).toBeTruthy();
  expect(englishLeft()).toEqual([]);
  fireEvent.press(screen.getByTestId('tab-register'));
  expect(await screen.findByText('Crea tu cuenta')).toBeTruthy();
  expect(englishLeft()).toEqual([]);
});

it('the dashboard and Transfer Funds are all Spanish, amounts written for es-ES', async () => {
  await sessionStore.signIn('tok', customer);
  const dashboard = renderScreen(UserDashboardScreen);
  expect(await screen.findByText('Movimientos recientes')).toBeTruthy();
  await screen.findAllByText('Rent share');
  expect(englishLeft()).toEqual([]);
  dashboard.unmount();

  renderScreen(TransferFundsScreen);
  await screen.findAllByText('Rent share');
  expect(screen.getAllByText(/12,50\s€|12,50\sUS\$/).length).toBeGreaterThan(0);
  fireEvent.press(screen.getByTestId('transfer-open'));
  expect((await screen.findAllByText(/Número de cuenta del destinatario/)).length).toBeGreaterThan(0);
  expect(englishLeft()).toEqual([]);
});
