import { act, chooseOption, fireEvent, screen, waitFor, within } from './rtl';

import TransactionHistoryScreen from '../screens/TransactionHistoryScreen';
import { sessionStore } from '../state/session';
import { toast } from '../state/toast';
import { accounts, adminUser, customer, renderScreen, transactions } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

const realFetch = global.fetch;

afterEach(async () => {
  global.fetch = realFetch;
  act(() => toast.dismiss());
  await act(() => sessionStore.signOut());
});

/** Records the query strings the history endpoint got. */
function historyServer(path: string, answer: (query: URLSearchParams) => Response) {
  const queries: URLSearchParams[] = [];
  const { calls } = mockFetch({
    [`GET ${path}`]: (_body, url) => {
      const query = new URLSearchParams(url.split('?')[1] ?? '');
      queries.push(query);
      return answer(query);
    },
  });
  return { queries, calls };
}

describe('Transaction History', () => {
  it("writes each row's amount in its account's currency", async () => {
    await sessionStore.signIn('tok', customer);
    const euro = { ...accounts[0], id: 13, account_number: '100200399', currency: 'EUR' };
    mockFetch({
      'GET /api/user/accounts': () => jsonResponse(200, [...accounts, euro]),
      'GET /api/user/transactions/history': () =>
        jsonResponse(200, { data: [...transactions, { ...transactions[0], id: 9, amount: 40, account_id: '100200399', to_account_id: '900800799' }], next_cursor: null }),
    });
    renderScreen(TransactionHistoryScreen);
    const table = screen.getByTestId('history-table');
    await waitFor(() => expect(within(table).getByText('€40.00')).toBeTruthy());
    expect(within(table).getByText('$12.50')).toBeTruthy();
    expect(within(table).getByText('$1,000.00')).toBeTruthy();
  });

  it("shows 'Loading transactions...', then rows for the account_id", async () => {
    await sessionStore.signIn('tok', customer);
    const { queries } = historyServer('/api/user/transactions/history', () => jsonResponse(200, { data: transactions, next_cursor: null }));
    renderScreen(TransactionHistoryScreen, { account_id: '100200300' });
    expect(screen.getByText('Loading transactions...')).toBeTruthy();
    const table = screen.getByTestId('history-table');
    await waitFor(() => expect(within(table).getByText('$1,000.00')).toBeTruthy());
    expect(within(table).getByText('Salary')).toBeTruthy();
    expect(within(table).getByText('Debit')).toBeTruthy();
    for (const t of ['Date', 'Description', 'Type', 'Amount', 'To Account']) expect(within(table).getByText(t)).toBeTruthy();
    expect(queries[0].get('account_id')).toBe('100200300');
    expect(queries[0].get('transaction_type')).toBeNull();
    expect(screen.getByText('Account 100200300')).toBeTruthy();
    expect(screen.queryByTestId('history-load-more')).toBeNull();
  });

  it('filters by type on the server', async () => {
    await sessionStore.signIn('tok', customer);
    const { queries } = historyServer('/api/user/transactions/history', (q) =>
      jsonResponse(200, { data: transactions.filter((t) => !q.get('transaction_type') || t.transaction_type === q.get('transaction_type')), next_cursor: null }),
    );
    renderScreen(TransactionHistoryScreen);
    await screen.findByText('Salary');
    expect(screen.getAllByText('All Transactions').length).toBeGreaterThan(0);
    chooseOption('history-filter', 'Debit');
    expect(await screen.findByText('Rent share')).toBeTruthy();
    expect(screen.queryByText('Salary')).toBeNull();
    expect(queries.at(-1)!.get('transaction_type')).toBe('DEBIT');
    chooseOption('history-filter', 'Credit');
    await waitFor(() => expect(queries.at(-1)!.get('transaction_type')).toBe('CREDIT'));
    expect(await screen.findByText('Salary')).toBeTruthy();
  });

  it('loads more with before=next_cursor and hides the button at the end', async () => {
    await sessionStore.signIn('tok', customer);
    const { queries } = historyServer('/api/user/transactions/history', (q) =>
      q.get('before') === 'c1'
        ? jsonResponse(200, { data: [transactions[1]], next_cursor: null })
        : jsonResponse(200, { data: [transactions[0]], next_cursor: 'c1' }),
    );
    renderScreen(TransactionHistoryScreen);
    await screen.findByText('Rent share');
    expect(queries[0].get('limit')).toBe('50');
    expect(screen.queryByText('Salary')).toBeNull();
    fireEvent.press(screen.getByTestId('history-load-more'));
    expect(await screen.findByText('Salary')).toBeTruthy();
    expect(screen.getByText('Rent share')).toBeTruthy();
    expect(queries.at(-1)!.get('before')).toBe('c1');
    await waitFor(() => expect(screen.queryByTestId('history-load-more')).toBeNull());
  });

  it('an admin reads the admin endpoint', async () => {
    await sessionStore.signIn('tok', adminUser);
    const { calls } = historyServer('/api/admin/transactions/history', () => jsonResponse(200, { data: transactions, next_cursor: null }));
    renderScreen(TransactionHistoryScreen);
    expect(await screen.findByText('Salary')).toBeTruthy();
    // The history and, for each row's currency, every account: admin endpoints only.
    expect(calls.some((c) => c.path === '/api/admin/transactions/history')).toBe(true);
    expect(calls.every((c) => c.path === '/api/admin/transactions/history' || c.path === '/api/admin/accounts')).toBe(true);
  });

  it("no stored user defaults to the user endpoint; a failure shows 'Failed to load transactions'", async () => {
    const { calls } = historyServer('/api/user/transactions/history', () => jsonResponse(500));
    renderScreen(TransactionHistoryScreen);
    expect(await screen.findByText('Failed to load transactions')).toBeTruthy();
    expect(calls.find((c) => c.path.endsWith('/transactions/history'))?.path).toBe('/api/user/transactions/history');
  });
});
