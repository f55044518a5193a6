import { chooseOption, fireEvent, screen, waitFor } from './rtl';

import TransferFundsScreen from '../screens/TransferFundsScreen';
import UsersScreen from '../screens/UsersScreen';
import type { AdminUserRow, DailyLimit } from '../services/api/types';
import { accounts, adminUser, approval, customer, renderElement, renderScreen, transactions } from './screenHarness';
import { signedInAs } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

const euro = { ...accounts[0], id: 13, account_number: '100200399', balance: 80, currency: 'EUR' };

describe('the daily limit on Transfer Funds', () => {
  signedInAs(customer);

  function server(limits: () => DailyLimit[], extra: Parameters<typeof mockFetch>[0] = {}) {
    return mockFetch({
      'GET /api/user/accounts': () => jsonResponse(200, [...accounts, euro]),
      'GET /api/user/transactions/history': () => jsonResponse(200, { data: transactions, next_cursor: null }),
      'GET /api/user/account-details': () => jsonResponse(200, { full_name: 'Bob Brown', account_number: '900800700' }),
      'GET /api/user/payees': () => jsonResponse(200, []),
      'GET /api/user/limits': () => jsonResponse(200, limits()),
      ...extra,
    });
  }

  async function openForm() {
    renderScreen(TransferFundsScreen);
    await screen.findByText('Rent share');
    fireEvent.press(screen.getByTestId('transfer-open'));
  }

  it("shows 'Used today: €X of €Y' for the chosen account's currency", async () => {
    server(() => [
      { currency: 'USD', used_today: 120, daily_transfer_limit: 10000 },
      { currency: 'EUR', used_today: 12.5, daily_transfer_limit: 500 },
    ]);
    await openForm();
    expect(screen.queryByTestId('transfer-limit-used')).toBeNull();
    chooseOption('transfer-from', '100200399 (€80.00)');
    expect(await screen.findByTestId('transfer-limit-used')).toHaveTextContent('Used today: €12.50 of €500.00');
    chooseOption('transfer-from', '100200300 ($1,250.50)');
    await waitFor(() => expect(screen.getByTestId('transfer-limit-used')).toHaveTextContent('Used today: $120.00 of $10,000.00'));
  });

  it('is fetched again after a transfer', async () => {
    let used = 0;
    const { calls } = server(() => [{ currency: 'USD', used_today: used, daily_transfer_limit: 100 }], {
      'POST /api/user/money-transfer': () => {
        used = 12.5;
        return jsonResponse(201, { message: 'Transfer successful', transaction: transactions[0] });
      },
    });
    await openForm();
    chooseOption('transfer-from', '100200300 ($1,250.50)');
    expect(await screen.findByTestId('transfer-limit-used')).toHaveTextContent('Used today: $0.00 of $100.00');
    fireEvent.changeText(screen.getByTestId('transfer-amount'), '12.50');
    fireEvent.changeText(screen.getByTestId('transfer-to'), '900800700');
    fireEvent.press(screen.getByTestId('transfer-submit'));
    expect(await screen.findByText('Transfer successful!')).toBeTruthy();
    await waitFor(() => expect(calls.filter((c) => c.path === '/api/user/limits').length).toBeGreaterThanOrEqual(2));
    fireEvent.press(screen.getByTestId('transfer-open'));
    chooseOption('transfer-from', '100200300 ($1,250.50)');
    expect(await screen.findByTestId('transfer-limit-used')).toHaveTextContent('Used today: $12.50 of $100.00');
  });

  it("a transfer over the limit (422 daily_limit_exceeded) shows the server's sentence and keeps the form", async () => {
    const sentence = 'This transfer would exceed your daily limit of $100.00 (used today: $90.00)';
    server(() => [{ currency: 'USD', used_today: 90, daily_transfer_limit: 100 }], {
      'POST /api/user/money-transfer': () => jsonResponse(422, { error: sentence, code: 'daily_limit_exceeded' }),
    });
    await openForm();
    chooseOption('transfer-from', '100200300 ($1,250.50)');
    fireEvent.changeText(screen.getByTestId('transfer-amount'), '20');
    fireEvent.changeText(screen.getByTestId('transfer-to'), '900800700');
    fireEvent.press(screen.getByTestId('transfer-submit'));
    expect(await screen.findByText(sentence)).toBeTruthy();
    expect(screen.getByTestId('transfer-modal')).toBeTruthy();
  });
});

describe("an admin sets a customer's daily limit", () => {
  signedInAs(adminUser, 'tok-admin');

  const rows: AdminUserRow[] = [
    { id: 1, name: 'Ada Admin', email: 'admin@meridian.test', phone: '+1 555 0001', role: 'Admin', status: true, created: '2026-01-02T10:00:00Z' },
    { id: 2, name: 'Alice Smith', email: 'alice@meridian.test', phone: '+1 555 0102', role: 'User', status: true, created: '2026-01-03T10:00:00Z' },
  ];

  function server(extra: Parameters<typeof mockFetch>[0] = {}) {
    return mockFetch({ 'GET /api/admin/users': () => jsonResponse(200, rows), ...extra });
  }

  it('Daily limit (customers only) opens a form; the amount goes to PUT /api/admin/users/{id}/limits', async () => {
    const { calls } = server({
      'PUT /api/admin/users/2/limits': (body) =>
        jsonResponse(200, { user_id: 2, daily_transfer_limit: Number((body as { daily_transfer_limit: string }).daily_transfer_limit), default: false }),
    });
    renderElement(<UsersScreen />);
    await screen.findByText('Alice Smith');
    expect(screen.queryByTestId('user-limit-1')).toBeNull();
    fireEvent.press(screen.getByTestId('user-limit-2'));
    expect(await screen.findByTestId('user-limit-modal')).toBeTruthy();

    fireEvent.press(screen.getByTestId('user-limit-submit'));
    expect(await screen.findByText('Daily limit is required.')).toBeTruthy();
    fireEvent.changeText(screen.getByTestId('user-limit-amount'), '12.345');
    fireEvent.press(screen.getByTestId('user-limit-submit'));
    expect(await screen.findByText('Daily limit must be 0 or more, with at most 2 decimals.')).toBeTruthy();
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);

    fireEvent.changeText(screen.getByTestId('user-limit-amount'), '2500.50');
    fireEvent.press(screen.getByTestId('user-limit-submit'));
    expect(await screen.findByText('Daily limit of Alice Smith set')).toBeTruthy();
    expect(calls.find((c) => c.method === 'PUT')).toMatchObject({ path: '/api/admin/users/2/limits', body: { daily_transfer_limit: '2500.50' } });
    await waitFor(() => expect(screen.queryByTestId('user-limit-modal')).toBeNull());
  });

  it("'Use the bank's default limit' sends null", async () => {
    const { calls } = server({ 'PUT /api/admin/users/2/limits': () => jsonResponse(200, { user_id: 2, daily_transfer_limit: 10000, default: true }) });
    renderElement(<UsersScreen />);
    fireEvent.press(await screen.findByTestId('user-limit-2'));
    fireEvent.press(await screen.findByTestId('user-limit-default'));
    expect(screen.queryByTestId('user-limit-amount')).toBeNull();
    fireEvent.press(screen.getByTestId('user-limit-submit'));
    expect(await screen.findByText('Daily limit of Alice Smith back to the default')).toBeTruthy();
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ daily_transfer_limit: null });
  });

  it("a raise answers 202 {approval}: it waits for a second administrator", async () => {
    server({
      'PUT /api/admin/users/2/limits': () =>
        jsonResponse(202, { approval: approval(9, { kind: 'limit_raise', summary: 'Raise the daily limit of alice@meridian.test to $50,000.00', requested_by: 'admin@meridian.test', requested_by_id: 1 }) }),
    });
    renderElement(<UsersScreen />);
    fireEvent.press(await screen.findByTestId('user-limit-2'));
    fireEvent.changeText(await screen.findByTestId('user-limit-amount'), '50000');
    fireEvent.press(screen.getByTestId('user-limit-submit'));
    expect(await screen.findByText("Waiting for a second administrator's approval")).toBeTruthy();
    expect(screen.queryByText('Daily limit of Alice Smith set')).toBeNull();
    await waitFor(() => expect(screen.queryByTestId('user-limit-modal')).toBeNull());
  });

  it("a refusal shows the server's sentence and keeps the form", async () => {
    server({ 'PUT /api/admin/users/2/limits': () => jsonResponse(400, { error: 'Amount is above the maximum', code: 'invalid_amount' }) });
    renderElement(<UsersScreen />);
    fireEvent.press(await screen.findByTestId('user-limit-2'));
    fireEvent.changeText(await screen.findByTestId('user-limit-amount'), '99');
    fireEvent.press(screen.getByTestId('user-limit-submit'));
    expect(await screen.findByText('Amount is above the maximum')).toBeTruthy();
    expect(screen.getByTestId('user-limit-modal')).toBeTruthy();
  });
});
