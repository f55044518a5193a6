import { chooseOption, fireEvent, screen, waitFor, within } from './rtl';

import AdminDashboardScreen from '../screens/AdminDashboardScreen';
import UserDashboardScreen from '../screens/UserDashboardScreen';
import { sessionStore } from '../state/session';
import { accounts, adminUser, customer, renderScreen, requests, signedInAs, transactions } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

// The chart itself (victory) is not under test: a stand-in showing what it got.
jest.mock('../components/charts', () => {
  const { Text } = require('react-native');
  return {
    AreaChart: ({ data, height }: { data: Array<{ name: string; total: number }>; height: number }) => (
      <Text testID="chart">{`points=${data.length} height=${height}`}</Text>
    ),
  };
});

const byCurrency = [
  { currency: 'USD', total_balance: 1250.6, total_sent_amount: 1234.5, total_received_amount: 99 },
  { currency: 'EUR', total_balance: 308, total_sent_amount: 200, total_received_amount: 8 },
];
const summary = { total_transactions: 42, pending_requests: 3, total_transfers: 7, total_sent_amount: 1234.5, total_received_amount: 99, by_currency: byCurrency };
const euroAccount = { ...accounts[0], id: 13, account_number: '100200399', type_name: 'Euro Savings', account_type_id: 3, balance: 308, currency: 'EUR' };
const monthly = Array.from({ length: 12 }, (_, i) => ({ name: `M${i}`, total: i }));

function userServer(extra: Record<string, (body: unknown) => Response> = {}) {
  return mockFetch({
    'GET /api/user/dashboard/transactions-summary': () => jsonResponse(200, { data: summary }),
    'GET /api/user/dashboard/monthly-transactions': () => jsonResponse(200, monthly),
    'GET /api/user/accounts': () => jsonResponse(200, accounts),
    'GET /api/user/transactions/money-request': () => jsonResponse(200, requests),
    'GET /api/user/transactions/history': () => jsonResponse(200, { data: transactions, next_cursor: null }),
    ...extra,
  });
}


describe('User Dashboard', () => {
  signedInAs(customer);

beforeEach(async () => {
    });

  it("shows 'Loading dashboard...' first, then the cards, chart and tables", async () => {
    userServer();
    renderScreen(UserDashboardScreen);
    expect(screen.getByText('Loading dashboard...')).toBeTruthy();
    expect(await screen.findByText('Dashboard')).toBeTruthy();
    expect(await screen.findByTestId('dashboard-total-transactions')).toHaveTextContent('42');
    expect(screen.getByTestId('dashboard-pending-requests')).toHaveTextContent('3');
    expect(screen.getByTestId('dashboard-total-transfers')).toHaveTextContent('7');
    expect(screen.getByTestId('dashboard-total-sent')).toHaveTextContent('$1,234.50');
    expect(screen.getByTestId('dashboard-total-received')).toHaveTextContent('$99.00');
    for (const title of ['Account Balance', 'Total Transactions', 'Pending Requests', 'Total Transfers', 'Total Sent Amount', 'Total Received Amount', 'Monthly Transaction Summary', 'Recent Money Requests', 'Recent Transactions']) {
      expect(screen.getByText(title)).toBeTruthy();
    }
    expect(screen.queryByText('Admin Dashboard')).toBeNull();
    expect(screen.getByTestId('chart')).toHaveTextContent('points=12 height=300');
  });

  it('sums all balances with no account selected; a selected account shows its balance and a history link', async () => {
    userServer({ 'GET /api/user/transactions/history': () => jsonResponse(200, { data: [], next_cursor: null }) });
    renderScreen(UserDashboardScreen);
    await waitFor(() => expect(screen.getByTestId('dashboard-balance')).toHaveTextContent('$1,250.60'));
    expect(screen.queryByTestId('dashboard-account-link')).toBeNull();
    expect(screen.getAllByText('Select an account').length).toBeGreaterThan(0);
    chooseOption('dashboard-account-select', '100200301');
    expect(screen.getByTestId('dashboard-balance')).toHaveTextContent('$0.10');
    const link = screen.getByTestId('dashboard-account-link');
    expect(link).toHaveTextContent('100200301');
    fireEvent.press(link);
    expect(await screen.findByTestId('probe')).toHaveTextContent(
      'ROUTE App {"screen":"TransactionHistory","params":{"account_id":"100200301"}}',
    );
  });

  it('request rows: 2-decimal amounts, status badges, Accept/Decline only on incoming PENDING', async () => {
    userServer();
    renderScreen(UserDashboardScreen);
    const table = await screen.findByTestId('dashboard-requests');
    await waitFor(() => expect(within(table).getByText('$20.00')).toBeTruthy());
    expect(within(table).getByText('$7.50')).toBeTruthy();
    expect(within(table).getByText('Actions')).toBeTruthy();
    expect(screen.getByTestId('dashboard-accept-31')).toBeTruthy();
    expect(screen.getByTestId('dashboard-decline-31')).toBeTruthy();
    // Outgoing pending and incoming accepted: no actions.
    expect(screen.queryByTestId('dashboard-accept-32')).toBeNull();
    expect(screen.queryByTestId('dashboard-accept-33')).toBeNull();
    expect(within(table).getByText('Accepted')).toBeTruthy();
  });

  it('accepting calls the API, toasts and reloads; a failure shows the server error first', async () => {
    const { calls } = userServer({
      'PUT /api/user/accept-money-request/31': () => jsonResponse(200, { message: 'Money request accepted', data: requests[0] }),
      'PUT /api/user/decline-money-request/31': () => jsonResponse(422, { error: 'Request has expired', code: 'expired' }),
    });
    renderScreen(UserDashboardScreen);
    fireEvent.press(await screen.findByTestId('dashboard-accept-31'));
    expect(await screen.findByText('Money request accepted!')).toBeTruthy();
    await waitFor(() =>
      expect(calls.filter((c) => c.path === '/api/user/transactions/money-request').length).toBeGreaterThanOrEqual(2),
    );
    await waitFor(() => expect(screen.getByTestId('dashboard-decline-31')).not.toBeDisabled());
    fireEvent.press(screen.getByTestId('dashboard-decline-31'));
    expect(await screen.findByText('Request has expired')).toBeTruthy();
  });

  it("a failure without a server error falls back to 'Failed to reject request'", async () => {
    userServer({ 'PUT /api/user/decline-money-request/31': () => jsonResponse(500) });
    renderScreen(UserDashboardScreen);
    fireEvent.press(await screen.findByTestId('dashboard-decline-31'));
    expect(await screen.findByText('Failed to reject request')).toBeTruthy();
  });

  it('transactions: date part only, DEBIT as Debit and anything else as Credit (badges capitalised like every other)', async () => {
    userServer({
      'GET /api/user/transactions/history': () =>
        jsonResponse(200, { data: [...transactions, { ...transactions[1], id: 3, transaction_type: 'OTHER' }], next_cursor: null }),
    });
    renderScreen(UserDashboardScreen);
    const table = await screen.findByTestId('dashboard-transactions');
    await waitFor(() => expect(within(table).getByText('2026-05-06')).toBeTruthy());
    expect(within(table).queryByText('2026-05-06T08:09:10Z')).toBeNull();
    expect(within(table).getAllByText('Debit')).toHaveLength(1);
    expect(within(table).getAllByText('Credit')).toHaveLength(2);
    expect(within(table).getByText('Rent share')).toBeTruthy();
  });

  it('empty states', async () => {
    userServer({
      'GET /api/user/transactions/money-request': () => jsonResponse(200, []),
      'GET /api/user/transactions/history': () => jsonResponse(200, { data: [], next_cursor: null }),
    });
    renderScreen(UserDashboardScreen);
    expect(await screen.findByText('No money requests available.')).toBeTruthy();
    expect(await screen.findByText('No recent transactions available.')).toBeTruthy();
  });

  it('errors: summary, accounts and transactions inline; chart and requests silently empty', async () => {
    mockFetch({
      'GET /api/user/dashboard/transactions-summary': () => jsonResponse(500, { error: 'boom' }),
      'GET /api/user/dashboard/monthly-transactions': () => jsonResponse(500, { error: 'boom' }),
      'GET /api/user/accounts': () => jsonResponse(500, { error: 'boom' }),
      'GET /api/user/transactions/money-request': () => jsonResponse(500, { error: 'boom' }),
      'GET /api/user/transactions/history': () => jsonResponse(500, { error: 'boom' }),
    });
    renderScreen(UserDashboardScreen);
    expect(await screen.findByText('Failed to load dashboard data')).toBeTruthy();
    expect(await screen.findByText('Failed to load accounts')).toBeTruthy();
    expect(await screen.findByText('Failed to load transactions')).toBeTruthy();
    expect(await screen.findByText('Failed to fetch transactions')).toBeTruthy();
    expect(await screen.findByText('No money requests available.')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('chart')).toHaveTextContent(/points=0 /));
    expect(screen.queryByText('boom')).toBeNull();
  });
});

describe('Dashboard currencies', () => {
  signedInAs(customer);

  it('the cards count dollars; a row per currency shows each one in its own symbol', async () => {
    userServer({ 'GET /api/user/accounts': () => jsonResponse(200, [...accounts, euroAccount]) });
    renderScreen(UserDashboardScreen);
    expect(await screen.findByTestId('dashboard-total-sent')).toHaveTextContent('$1,234.50');
    const table = screen.getByTestId('dashboard-currency-table');
    for (const title of ['Currency', 'Balance', 'Sent', 'Received']) expect(within(table).getByText(title)).toBeTruthy();
    for (const text of ['USD', '$1,250.60', '$1,234.50', '$99.00', 'EUR', '€308.00', '€200.00', '€8.00']) {
      expect(within(table).getByText(text)).toBeTruthy();
    }
  });

  it('the balance card never adds dollars and euros: one total per currency, or the selected account in its own', async () => {
    userServer({ 'GET /api/user/accounts': () => jsonResponse(200, [...accounts, euroAccount]) });
    renderScreen(UserDashboardScreen);
    await waitFor(() => expect(screen.getByTestId('dashboard-balance')).toHaveTextContent(/^\$1,250\.60 · €308\.00$/));
    chooseOption('dashboard-account-select', '100200399');
    expect(screen.getByTestId('dashboard-balance')).toHaveTextContent(/^€308\.00$/);
  });

  it("request and transaction rows are written in their account's currency", async () => {
    userServer({
      'GET /api/user/accounts': () => jsonResponse(200, [...accounts, euroAccount]),
      'GET /api/user/transactions/money-request': () => jsonResponse(200, [{ ...requests[1], ID: 40, Amount: 15, requester_id: '100200399' }]),
      'GET /api/user/transactions/history': () =>
        jsonResponse(200, { data: [{ ...transactions[0], amount: 40, account_id: '100200399', to_account_id: '900800799' }], next_cursor: null }),
    });
    renderScreen(UserDashboardScreen);
    await waitFor(() => expect(within(screen.getByTestId('dashboard-requests')).getByText('€15.00')).toBeTruthy());
    await waitFor(() => expect(within(screen.getByTestId('dashboard-transactions')).getByText('€40.00')).toBeTruthy());
  });

  it('no currency rows when the summary has none', async () => {
    userServer({
      'GET /api/user/dashboard/transactions-summary': () => jsonResponse(200, { data: { ...summary, by_currency: [] } }),
    });
    renderScreen(UserDashboardScreen);
    expect(await screen.findByTestId('dashboard-total-transactions')).toHaveTextContent('42');
    expect(screen.queryByTestId('dashboard-currencies')).toBeNull();
  });
});

describe('Admin Dashboard', () => {
  it('redirects a non-admin to / without loading admin data', async () => {
    const { calls } = userServer();
    await sessionStore.signIn('tok', customer);
    renderScreen(AdminDashboardScreen);
    expect(await screen.findByTestId('probe')).toHaveTextContent(/^ROUTE Dashboard/);
    expect(calls.some((c) => c.path.startsWith('/api/admin/'))).toBe(false);
  });

  it('redirects when the user is missing', async () => {
    userServer();
    renderScreen(AdminDashboardScreen);
    expect(await screen.findByTestId('probe')).toHaveTextContent(/^ROUTE Dashboard/);
  });

  it("shows 'System Balance' over all accounts, 'Monthly User Growth' and no Actions column", async () => {
    const all = [...accounts, { ...accounts[0], id: 99, account_number: '555000111', balance: 100, user_id: 3 }];
    const { calls } = mockFetch({
      'GET /api/admin/admindashboard/transactions-summary': () => jsonResponse(200, { data: { ...summary, total_balance: 1350.6, total_users: 3 } }),
      'GET /api/admin/admindashboard/monthly-transactions': () => jsonResponse(200, monthly),
      'GET /api/admin/accounts': () => jsonResponse(200, all),
      'GET /api/admin/transactions/money-request': () => jsonResponse(200, { data: requests }),
      'GET /api/admin/transactions/history': () => jsonResponse(200, { data: transactions, next_cursor: null }),
    });
    await sessionStore.signIn('tok', adminUser);
    renderScreen(AdminDashboardScreen);
    expect(await screen.findByText('Admin Dashboard')).toBeTruthy();
    expect(await screen.findByText('System Balance')).toBeTruthy();
    expect(screen.queryByText('Account Balance')).toBeNull();
    expect(screen.getByText('Monthly User Growth')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('dashboard-balance')).toHaveTextContent('$1,350.60'));
    const table = screen.getByTestId('dashboard-requests');
    await waitFor(() => expect(within(table).getByText('$20.00')).toBeTruthy());
    expect(within(table).queryByText('Actions')).toBeNull();
    expect(screen.queryByTestId('dashboard-accept-31')).toBeNull();
    expect(calls.some((c) => c.path.startsWith('/api/user/'))).toBe(false);
    // System-wide, a row per currency the bank offers.
    const currencies = screen.getByTestId('dashboard-currency-table');
    expect(within(currencies).getByText('€308.00')).toBeTruthy();
    expect(within(currencies).getByText('$1,250.60')).toBeTruthy();
  });
});
