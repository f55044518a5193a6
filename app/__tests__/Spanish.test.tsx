/**
 * In Spanish, the sign-in, the dashboard and Transfer Funds (with its form
 * open) show no English sentence the catalog translates: every text of those
 * screens goes through i18n. (The browser walk, e2e/app.test.mjs, checks the
 * same pages of the real build.)
 */
import { act, fireEvent, screen } from './rtl';

import es from '../i18n/es.json';
import { setLanguage } from '../i18n';
import ApprovalsScreen from '../screens/ApprovalsScreen';
import AuthScreen from '../screens/AuthScreen';
import ExchangeScreen from '../screens/ExchangeScreen';
import RatesScreen from '../screens/RatesScreen';
import SecurityScreen from '../screens/SecurityScreen';
import SettingsScreen from '../screens/SettingsScreen';
import UserDashboardScreen from '../screens/UserDashboardScreen';
import TransferFundsScreen from '../screens/TransferFundsScreen';
import { sessionStore } from '../state/session';
import { toast } from '../state/toast';
import { accounts, adminUser, approval, customer, renderScreen, requests, transactions } from './screenHarness';
import { chooseOption, optionLabels, waitFor, within } from './rtl';
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

it('Currency Exchange (with a quote) and Settings are all Spanish', async () => {
  await sessionStore.signIn('tok', customer);
  const euro = { ...accounts[0], id: 13, account_number: '100200399', type_name: 'Euro Savings', balance: 80, currency: 'EUR' };
  mockFetch({
    'GET /api/user/accounts': () => jsonResponse(200, [...accounts, euro]),
    'GET /api/user/preferences': () => jsonResponse(200, { home_currency: 'EUR' }),
    'POST /api/user/fx-quotes': () =>
      jsonResponse(201, { id: 701, from_currency: 'USD', to_currency: 'EUR', rate: 0.92, amount: 100, converted_amount: 91.54, expires_at: new Date(Date.now() + 30_000).toISOString() }),
  });
  const exchange = renderScreen(ExchangeScreen);
  await waitFor(() => expect(optionLabels('exchange-from')).toHaveLength(3));
  // (Intl writes es-ES amounts with no-break spaces; the queries collapse them.)
  chooseOption('exchange-from', optionLabels('exchange-from')[0].replace(/\s+/g, ' '));
  chooseOption('exchange-to', optionLabels('exchange-to')[0].replace(/\s+/g, ' '));
  fireEvent.changeText(screen.getByTestId('exchange-amount'), '100');
  fireEvent.press(screen.getByTestId('exchange-quote'));
  expect(await screen.findByTestId('exchange-quote-card')).toBeTruthy();
  expect(screen.getByTestId('exchange-countdown')).toHaveTextContent(/^Este tipo se mantiene \d+ segundos más\.$/);
  expect(screen.getByTestId('exchange-rate')).toHaveTextContent('1 USD = 0,92 EUR');
  expect(englishLeft()).toEqual([]);
  exchange.unmount();

  renderScreen(SettingsScreen);
  expect((await screen.findAllByText('Moneda principal')).length).toBeGreaterThan(0);
  expect(englishLeft()).toEqual([]);
});

it('Approvals and Rates are all Spanish', async () => {
  await sessionStore.signIn('tok-admin', adminUser);
  mockFetch({
    'GET /api/admin/approvals': () =>
      jsonResponse(200, [approval(1), approval(2, { kind: 'limit_raise', summary: 'Raise', requested_by: adminUser.email, requested_by_id: adminUser.id })]),
    'GET /api/fx-rates': () => jsonResponse(200, [{ base: 'EUR', quote: 'USD', rate: 1.0842, updated_at: '2026-06-01T09:00:00Z' }]),
    'GET /api/admin/account-types': () => jsonResponse(200, [{ id: 2, type_name: 'Savings', currency: 'USD', interest_rate: 2 }]),
  });
  const approvals = renderScreen(ApprovalsScreen);
  expect(await screen.findByText('Aprobar')).toBeTruthy();
  expect(screen.getByText('La pediste tú; debe decidirla otro administrador.')).toBeTruthy();
  expect(englishLeft()).toEqual([]);
  approvals.unmount();

  renderScreen(RatesScreen);
  expect(await screen.findByText('1 EUR = 1,0842 USD')).toBeTruthy();
  expect(await screen.findByText('2,00 % anual')).toBeTruthy();
  expect(englishLeft()).toEqual([]);
});

it('Security: the access tokens (create form open) and connected apps are all Spanish, scopes included', async () => {
  await sessionStore.signIn('tok', customer);
  mockFetch({
    'GET /api/auth/2fa': () => jsonResponse(200, { enabled: false, backup_codes_left: 0 }),
    'GET /api/auth/sessions': () => jsonResponse(200, []),
    'GET /api/auth/tokens': () =>
      jsonResponse(200, [{ id: 4, name: 'Old script', scopes: ['accounts:read'], created_at: '2026-05-01T08:00:00Z', expires_at: '2026-08-01T08:00:00Z', last_used_at: '2026-05-02T08:00:00Z' }]),
    // The server describes scopes in English; the app shows its own Spanish for the scopes it knows.
    'GET /api/auth/connected-apps': () =>
      jsonResponse(200, [
        { id: 2, client_id: 'mrd_app_x', client_name: 'Budget Buddy', scopes: [{ scope: 'accounts:read', description: 'See your accounts and their balances' }], accounts: [], created_at: '2026-05-01T08:00:00Z' },
      ]),
  });
  renderScreen(SecurityScreen);
  expect(await screen.findByText('Tokens de acceso')).toBeTruthy();
  const token = await screen.findByTestId('access-token-4');
  expect(within(token).getByText(/^Caduca el .+ · último uso .+$/)).toBeTruthy();
  expect(screen.getByTestId('access-token-revoke-4')).toHaveTextContent('Revocar');
  const app = await screen.findByTestId('connected-app-2');
  expect(within(app).getByText('Ver tus cuentas y sus saldos')).toBeTruthy();
  expect(within(app).getByText(/^Cuentas: ninguna · conectada el .+$/)).toBeTruthy();
  expect(englishLeft()).toEqual([]);

  fireEvent.press(screen.getByTestId('access-token-create'));
  expect(await screen.findByText('Crear un token de acceso')).toBeTruthy();
  expect(screen.getByTestId('access-token-scope-accounts:read')).toHaveTextContent('accounts:read: Ver tus cuentas y sus saldos');
  fireEvent.changeText(screen.getByTestId('access-token-days'), '400');
  fireEvent.press(screen.getByTestId('access-token-submit'));
  expect(await screen.findByText('Ponle un nombre al token')).toBeTruthy();
  expect(screen.getByText('Elige al menos un permiso')).toBeTruthy();
  expect(screen.getByText('Escribe un número entero de días entre 1 y 365')).toBeTruthy();
  expect(englishLeft()).toEqual([]);
});
