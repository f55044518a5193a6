import { chooseOption, fireEvent, optionLabels, screen, waitFor } from './rtl';

import UsersScreen from '../screens/UsersScreen';
import type { Account, AdminUserRow } from '../services/api/types';
import { accounts, adminUser, approval, renderElement, signedInAs } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

const rows: AdminUserRow[] = [
  { id: 1, name: 'Ada Admin', email: 'admin@meridian.test', phone: '+1 555 0001', role: 'Admin', status: true, created: '2026-01-02T10:00:00Z' },
  { id: 2, name: 'Alice Smith', email: 'alice@meridian.test', phone: '+1 555 0102', role: 'User', status: true, created: '2026-01-03T10:00:00Z' },
  { id: 3, name: 'Bob Stone', email: 'bob@meridian.test', phone: '+1 555 0203', role: 'User', status: true, created: '2026-01-04T10:00:00Z' },
];

const bobs: Account = { ...accounts[0], id: 21, name: 'Bob Stone', account_number: '200300400', user_id: 3, balance: 5 };

function server(extra: Parameters<typeof mockFetch>[0] = {}) {
  let all: Account[] = [...accounts, bobs];
  const mock = mockFetch({
    'GET /api/user/notifications': () => jsonResponse(200, []),
    'GET /api/admin/users': () => jsonResponse(200, rows),
    'GET /api/admin/accounts': () => jsonResponse(200, all),
    ...extra,
  });
  return { ...mock, setAccounts: (next: Account[]) => (all = next) };
}

signedInAs(adminUser, 'tok-admin');

/** Opens the form from the row's menu; waits for the customer's accounts (unless none are expected). */
async function openFunds(userId: number, kind: 'deposit' | 'withdraw', { accountsShown = true } = {}) {
  fireEvent.press(await screen.findByTestId(`user-funds-${userId}`));
  fireEvent.press(await screen.findByTestId(`user-${kind}-${userId}`));
  await screen.findByTestId('funds-modal');
  if (accountsShown) await screen.findByTestId('funds-account');
}

it("offers Deposit and Withdraw on a customer's row, not on an admin's", async () => {
  server();
  renderElement(<UsersScreen />);
  expect(await screen.findByTestId('user-funds-2')).toBeTruthy();
  expect(screen.getByTestId('user-funds-3')).toBeTruthy();
  expect(screen.queryByTestId('user-funds-1')).toBeNull();
  expect(screen.getByLabelText('Deposit / Withdraw for Alice Smith')).toBeTruthy();
  // The menu's button says what it holds (it was a bare "$").
  expect(screen.getAllByText('Deposit / Withdraw')).toHaveLength(2);
});

it("deposits into the chosen account of that customer: the call, a toast, the balances refreshed", async () => {
  const mock = server({
    'POST /api/admin/accounts/100200301/deposit': () => {
      mock.setAccounts([accounts[0], { ...accounts[1], balance: 250.1 }, bobs]);
      return jsonResponse(201, {
        id: 99,
        transaction_date: '2026-05-08T10:00:00Z',
        transaction_type: 'CREDIT',
        amount: 250,
        account_id: '100200301',
        to_account_id: '100200301',
        description: 'Cash at the counter',
      });
    },
  });
  renderElement(<UsersScreen />);
  await openFunds(2, 'deposit');
  expect(screen.getByText('Deposit to Alice Smith')).toBeTruthy();
  // Only Alice's accounts, with their balances.
  chooseOption('funds-account', '100200301 · Savings · $0.10');
  fireEvent.changeText(screen.getByTestId('funds-amount'), '250');
  fireEvent.changeText(screen.getByTestId('funds-description'), 'Cash at the counter');
  fireEvent.press(screen.getByTestId('funds-submit'));
  expect(await screen.findByText('Deposited $250.00 into 100200301')).toBeTruthy();
  await waitFor(() => expect(screen.queryByTestId('funds-modal')).toBeNull());
  expect(mock.calls.find((c) => c.path === '/api/admin/accounts/100200301/deposit')?.body).toEqual({
    amount: '250',
    description: 'Cash at the counter',
  });
  // The admin's view of the accounts is fetched again.
  await waitFor(() => expect(mock.calls.filter((c) => c.path === '/api/admin/accounts').length).toBeGreaterThanOrEqual(2));
  await openFunds(2, 'deposit');
  await waitFor(() => expect(optionLabels('funds-account')).toContain('100200301 · Savings · $250.10'));
  expect(optionLabels('funds-account').some((label) => label.includes('200300400'))).toBe(false);
});

it('withdraws with no description (the server writes "Withdrawal")', async () => {
  const { calls } = server({
    'POST /api/admin/accounts/200300400/withdraw': () =>
      jsonResponse(201, { id: 100, transaction_date: '', transaction_type: 'DEBIT', amount: 2.5, account_id: '200300400', to_account_id: '200300400', description: 'Withdrawal' }),
  });
  renderElement(<UsersScreen />);
  await openFunds(3, 'withdraw');
  expect(screen.getByText('Withdraw from Bob Stone')).toBeTruthy();
  fireEvent.changeText(screen.getByTestId('funds-amount'), '2.50');
  fireEvent.press(screen.getByTestId('funds-submit'));
  expect(await screen.findByText('Withdrew $2.50 from 200300400')).toBeTruthy();
  expect(calls.find((c) => c.path === '/api/admin/accounts/200300400/withdraw')?.body).toEqual({ amount: '2.50' });
});

it('Insufficient funds stays in the form', async () => {
  server({
    'POST /api/admin/accounts/200300400/withdraw': () => jsonResponse(422, { error: 'Insufficient funds', code: 'insufficient_funds' }),
  });
  renderElement(<UsersScreen />);
  await openFunds(3, 'withdraw');
  fireEvent.changeText(screen.getByTestId('funds-amount'), '500');
  fireEvent.press(screen.getByTestId('funds-submit'));
  expect(await screen.findByTestId('funds-error')).toHaveTextContent('Insufficient funds');
  expect(screen.getByTestId('funds-modal')).toBeTruthy();
  // Typing again clears it.
  fireEvent.changeText(screen.getByTestId('funds-amount'), '5');
  expect(screen.queryByTestId('funds-error')).toBeNull();
});

it('refuses a bad amount before asking the server', async () => {
  const { calls } = server();
  renderElement(<UsersScreen />);
  await openFunds(2, 'deposit');
  fireEvent.press(screen.getByTestId('funds-submit'));
  expect(await screen.findByText('Amount is required')).toBeTruthy();
  fireEvent.changeText(screen.getByTestId('funds-amount'), '1.005');
  fireEvent.press(screen.getByTestId('funds-submit'));
  expect(await screen.findByText('Amount must be at least 0.01, with at most 2 decimals.')).toBeTruthy();
  expect(calls.some((c) => c.method === 'POST')).toBe(false);
});

it('a customer without accounts: said so', async () => {
  const mock = server();
  mock.setAccounts([]);
  renderElement(<UsersScreen />);
  await openFunds(3, 'deposit', { accountsShown: false });
  expect(await screen.findByTestId('funds-no-accounts')).toHaveTextContent('This customer has no open accounts.');
});

it("at or over the threshold the server answers 202 {approval}: 'Waiting for a second administrator's approval', not a success", async () => {
  const { calls } = server({
    'POST /api/admin/accounts/100200300/deposit': () =>
      jsonResponse(202, { approval: approval(8, { summary: 'Deposit $25,000.00 into 100200300', requested_by: 'admin@meridian.test', requested_by_id: 1 }) }),
    'GET /api/admin/approvals': () => jsonResponse(200, []),
  });
  renderElement(<UsersScreen />);
  await openFunds(2, 'deposit');
  fireEvent.changeText(screen.getByTestId('funds-amount'), '25000');
  fireEvent.press(screen.getByTestId('funds-submit'));
  expect(await screen.findByText("Waiting for a second administrator's approval")).toBeTruthy();
  expect(screen.queryByText(/^Deposited /)).toBeNull();
  await waitFor(() => expect(screen.queryByTestId('funds-modal')).toBeNull());
  expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ amount: '25000' });
});
