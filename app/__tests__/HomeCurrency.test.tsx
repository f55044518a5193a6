import { chooseOption, screen, selectedOption, waitFor } from './rtl';

import SettingsScreen from '../screens/SettingsScreen';
import UserDashboardScreen from '../screens/UserDashboardScreen';
import { accounts, adminUser, customer, renderScreen, requests, signedInAs, transactions } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

jest.mock('../components/charts', () => ({ AreaChart: () => null }));

const summary = (home: { home_currency: string; total_balance_home: number | null }) => ({
  total_transactions: 2,
  pending_requests: 1,
  total_transfers: 1,
  total_sent_amount: 12.5,
  total_received_amount: 1000,
  by_currency: [],
  ...home,
});

function dashboardServer(home: { home_currency: string; total_balance_home: number | null }) {
  return mockFetch({
    'GET /api/user/dashboard/transactions-summary': () => jsonResponse(200, { data: summary(home) }),
    'GET /api/user/dashboard/monthly-transactions': () => jsonResponse(200, []),
    'GET /api/user/accounts': () => jsonResponse(200, accounts),
    'GET /api/user/transactions/money-request': () => jsonResponse(200, requests),
    'GET /api/user/transactions/history': () => jsonResponse(200, { data: transactions, next_cursor: null }),
  });
}

describe('the home currency', () => {
  signedInAs(customer);

  it('the dashboard shows the approximate total in it: "≈ €1,234.56"', async () => {
    dashboardServer({ home_currency: 'EUR', total_balance_home: 1234.56 });
    renderScreen(UserDashboardScreen);
    expect(await screen.findByTestId('dashboard-balance-home')).toHaveTextContent('≈ €1,234.56');
    expect(screen.getByLabelText('About €1,234.56 in all, in EUR at current rates')).toBeTruthy();
    // One account chosen: its own balance, no total.
    chooseOption('dashboard-account-select', '100200300');
    expect(screen.queryByTestId('dashboard-balance-home')).toBeNull();
  });

  it('nothing when a rate is missing (total_balance_home null)', async () => {
    dashboardServer({ home_currency: 'GBP', total_balance_home: null });
    renderScreen(UserDashboardScreen);
    expect(await screen.findByTestId('dashboard-total-transactions')).toHaveTextContent('2');
    expect(screen.queryByTestId('dashboard-balance-home')).toBeNull();
    expect(screen.queryByText(/≈/)).toBeNull();
  });

  it('Settings sets it (PUT /api/user/preferences) and the dashboard figures are fetched again', async () => {
    let home = 'USD';
    const { calls } = mockFetch({
      'GET /api/user/preferences': () => jsonResponse(200, { home_currency: home }),
      'PUT /api/user/preferences': (body) => {
        home = (body as { home_currency: string }).home_currency;
        return jsonResponse(200, { home_currency: home });
      },
    });
    const { queryClient } = renderScreen(SettingsScreen);
    const invalidate = jest.spyOn(queryClient, 'invalidateQueries');
    await waitFor(() => expect(selectedOption('settings-home-currency-select')).toBe('USD'));
    chooseOption('settings-home-currency-select', 'EUR');
    expect(await screen.findByText('Home currency set to EUR')).toBeTruthy();
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ home_currency: 'EUR' });
    expect(selectedOption('settings-home-currency-select')).toBe('EUR');
    expect(invalidate).toHaveBeenCalledWith({ queryKey: ['dashboard'] });
  });
});

describe("an admin's Settings", () => {
  signedInAs(adminUser, 'tok-admin');

  it('has no home currency (only customers have a dashboard total)', async () => {
    const { calls } = mockFetch({});
    renderScreen(SettingsScreen);
    expect(await screen.findByTestId('screen-settings')).toBeTruthy();
    expect(screen.queryByTestId('settings-home-currency')).toBeNull();
    expect(calls).toHaveLength(0);
  });
});
