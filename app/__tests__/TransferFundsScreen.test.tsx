import { act, chooseOption, fireEvent, onWeb, screen, waitFor, within } from './rtl';

import { randomUUID } from 'expo-crypto';

import TransferFundsScreen from '../screens/TransferFundsScreen';
import { sessionStore } from '../state/session';
import { toast } from '../state/toast';
import { accounts, customer, renderScreen, transactions } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

const realFetch = global.fetch;

function server(extra: Record<string, (body: unknown) => Response> = {}) {
  return mockFetch({
    'GET /api/user/accounts': () => jsonResponse(200, accounts),
    'GET /api/user/transactions/history': () => jsonResponse(200, { data: transactions, next_cursor: null }),
    'GET /api/user/account-details': () => jsonResponse(200, { full_name: 'Bob Brown', account_number: '900800700' }),
    'GET /api/user/limits': () => jsonResponse(200, [{ daily_transfer_limit: 10000, used_today: 12.5, currency: 'USD' }]),
    ...extra,
  });
}

beforeEach(async () => {
  await sessionStore.signIn('tok', customer);
});

afterEach(async () => {
  jest.useRealTimers();
  global.fetch = realFetch;
  act(() => toast.dismiss());
  await act(() => sessionStore.signOut());
});

async function openForm() {
  renderScreen(TransferFundsScreen);
  await screen.findByText('Rent share');
  fireEvent.press(screen.getByTestId('transfer-open'));
  expect(screen.getByTestId('transfer-modal')).toBeTruthy();
}

/** Fills the form; with an account chosen, waits for its daily-limit line (its query answers inside act). */
async function fill({ from = true, amount = '12.50', to = '900800700', note = 'Dinner' } = {}) {
  if (from) {
    chooseOption('transfer-from', '100200300 ($1,250.50)');
    await screen.findByTestId('transfer-limit-used');
  }
  fireEvent.changeText(screen.getByTestId('transfer-amount'), amount);
  fireEvent.changeText(screen.getByTestId('transfer-to'), to);
  fireEvent.changeText(screen.getByTestId('transfer-note'), note);
}

const lookups = (calls: Array<{ path: string }>) => calls.filter((c) => c.path === '/api/user/account-details');

describe('Transfer Funds', () => {
  it('lists the history with type badges, 2-decimal amounts and date parts; Refresh reloads it', async () => {
    const { calls } = server();
    renderScreen(TransferFundsScreen);
    const table = await screen.findByTestId('transfer-history');
    await waitFor(() => expect(within(table).getByText('Rent share')).toBeTruthy());
    expect(within(table).getByText('Debit')).toBeTruthy();
    expect(within(table).getByText('Credit')).toBeTruthy();
    expect(within(table).getByText('$12.50')).toBeTruthy();
    expect(within(table).getByText('$1,000.00')).toBeTruthy();
    expect(within(table).getByText('2026-05-07')).toBeTruthy();
    const before = calls.filter((c) => c.path === '/api/user/transactions/history').length;
    fireEvent.press(screen.getByText('Refresh'));
    await waitFor(() => expect(calls.filter((c) => c.path === '/api/user/transactions/history').length).toBe(before + 1));
  });

  it("'Failed to fetch transactions' toast and inline error", async () => {
    server({ 'GET /api/user/transactions/history': () => jsonResponse(500, { error: 'x' }) });
    renderScreen(TransferFundsScreen);
    expect(await screen.findByText('Failed to fetch transactions')).toBeTruthy();
    expect(screen.getByText('Failed to load transactions')).toBeTruthy();
  });

  it('requires amount, from account and recipient', async () => {
    const { calls } = server();
    await openForm();
    await fill({ from: false });
    fireEvent.press(screen.getByTestId('transfer-submit'));
    expect(await screen.findByText('Amount, From Account, and Recipient are required.')).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('a toast raised while the form is open shows above it (in the modal, once)', async () => {
    server();
    await openForm();
    fireEvent.press(screen.getByTestId('transfer-submit'));
    const message = 'Amount, From Account, and Recipient are required.';
    expect(await screen.findByText(message)).toBeTruthy();
    expect(screen.getAllByText(message)).toHaveLength(1);
    expect(within(screen.getByTestId('transfer-modal-layer')).getByText(message)).toBeTruthy();
    // Closed: the root host shows toasts again.
    fireEvent.press(screen.getByTestId('transfer-cancel'));
    await waitFor(() => expect(screen.queryByTestId('transfer-modal')).toBeNull());
    act(() => {
      toast.error('after the form');
    });
    expect(screen.getAllByText('after the form')).toHaveLength(1);
  });

  it('refuses an amount under 0.01', async () => {
    const { calls } = server();
    await openForm();
    await fill({ amount: '0' });
    fireEvent.press(screen.getByTestId('transfer-submit'));
    expect(await screen.findByText('Amount must be at least 0.01, with at most 2 decimals.')).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it("a missing user gets 'User not found. Please login again.'", async () => {
    const { calls } = server();
    await openForm();
    await fill();
    await act(() => sessionStore.setUser(null as never));
    fireEvent.press(screen.getByTestId('transfer-submit'));
    expect(await screen.findByText('User not found. Please login again.')).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('looks the recipient up 1000 ms after typing stops, only for 6+ characters', async () => {
    jest.useFakeTimers();
    const { calls } = server();
    await openForm();
    fireEvent.changeText(screen.getByTestId('transfer-to'), '12345');
    act(() => jest.advanceTimersByTime(2000));
    expect(lookups(calls)).toHaveLength(0);

    fireEvent.changeText(screen.getByTestId('transfer-to'), '900800');
    act(() => jest.advanceTimersByTime(500));
    fireEvent.changeText(screen.getByTestId('transfer-to'), '900800700');
    act(() => jest.advanceTimersByTime(999));
    expect(lookups(calls)).toHaveLength(0);
    await act(async () => {
      jest.advanceTimersByTime(1);
    });
    expect(lookups(calls)).toHaveLength(1);
    expect(calls.find((c) => c.path === '/api/user/account-details')).toBeTruthy();
    expect(await screen.findByTestId('transfer-recipient-name')).toHaveTextContent('Bob Brown');

    // Shorter than 6 again: cleared, no new lookup.
    fireEvent.changeText(screen.getByTestId('transfer-to'), '9008');
    expect(screen.queryByTestId('transfer-recipient-name')).toBeNull();
    act(() => jest.advanceTimersByTime(2000));
    expect(lookups(calls)).toHaveLength(1);
  });

  for (const [what, answer] of [
    ['429 (rate limited)', () => jsonResponse(429, { error: 'Too many requests', code: 'rate_limited' })],
    ['a network error', () => Promise.reject(new TypeError('Network request failed'))],
  ] as const) {
    it(`a lookup failing with ${what} says 'Account not found'`, async () => {
      jest.useFakeTimers();
      server({ 'GET /api/user/account-details': answer as () => Response });
      await openForm();
      fireEvent.changeText(screen.getByTestId('transfer-to'), '123456');
      await act(async () => {
        jest.advanceTimersByTime(1000);
      });
      expect(await screen.findByText('Account not found')).toBeTruthy();
      expect(screen.queryByTestId('transfer-recipient-name')).toBeNull();
    });
  }

  it("an unknown recipient toasts 'Account not found'", async () => {
    jest.useFakeTimers();
    server({ 'GET /api/user/account-details': () => jsonResponse(404, { error: 'Account not found', code: 'not_found' }) });
    await openForm();
    fireEvent.changeText(screen.getByTestId('transfer-to'), '123456');
    await act(async () => {
      jest.advanceTimersByTime(1000);
    });
    expect(await screen.findByText('Account not found')).toBeTruthy();
    expect(screen.queryByTestId('transfer-recipient-name')).toBeNull();
  });

  it('sends the transfer with an Idempotency-Key; success toasts and closes', async () => {
    const { calls } = server({
      'POST /api/user/money-transfer': () => jsonResponse(201, { message: 'Transfer successful', transaction: transactions[0] }),
    });
    await openForm();
    await fill();
    fireEvent.press(screen.getByTestId('transfer-submit'));
    expect(await screen.findByText('Transfer successful!')).toBeTruthy();
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.body).toEqual({ account_id: '100200300', to_account_id: '900800700', amount: '12.50', description: 'Dinner' });
    expect(post.headers['Idempotency-Key']).toMatch(/^[0-9a-f-]{36}$/);
    if (!onWeb) {
      // From expo-crypto (Hermes has no crypto.randomUUID; no Math.random fallback).
      expect(randomUUID).toHaveBeenCalled();
      expect(post.headers['Idempotency-Key']).toBe((randomUUID as jest.Mock).mock.results[0].value);
    }
    await waitFor(() => expect(screen.queryByTestId('transfer-modal')).toBeNull());
  });

  it('a double click sends once; a retry reuses the key; a new form gets a new key', async () => {
    let fail = true;
    const { calls } = server({
      'POST /api/user/money-transfer': () =>
        fail ? jsonResponse(500) : jsonResponse(201, { message: 'Transfer successful', transaction: transactions[0] }),
    });
    await openForm();
    await fill();
    fireEvent.press(screen.getByTestId('transfer-submit'));
    fireEvent.press(screen.getByTestId('transfer-submit'));
    expect(await screen.findByText('Transfer failed')).toBeTruthy();
    const posts = () => calls.filter((c) => c.method === 'POST');
    expect(posts()).toHaveLength(1);
    fail = false;
    await waitFor(() => expect(screen.getByTestId('transfer-submit')).not.toBeDisabled());
    fireEvent.press(screen.getByTestId('transfer-submit'));
    expect(await screen.findByText('Transfer successful!')).toBeTruthy();
    expect(posts()).toHaveLength(2);
    expect(posts()[1].headers['Idempotency-Key']).toBe(posts()[0].headers['Idempotency-Key']);

    await waitFor(() => expect(screen.queryByTestId('transfer-modal')).toBeNull());
    fireEvent.press(screen.getByTestId('transfer-open'));
    await fill();
    fireEvent.press(screen.getByTestId('transfer-submit'));
    await waitFor(() => expect(posts()).toHaveLength(3));
    expect(posts()[2].headers['Idempotency-Key']).not.toBe(posts()[0].headers['Idempotency-Key']);
  });

  it("a failure shows the server's error", async () => {
    server({ 'POST /api/user/money-transfer': () => jsonResponse(422, { error: 'Insufficient funds', code: 'insufficient_funds' }) });
    await openForm();
    await fill();
    fireEvent.press(screen.getByTestId('transfer-submit'));
    expect(await screen.findByText('Insufficient funds')).toBeTruthy();
    expect(screen.getByTestId('transfer-modal')).toBeTruthy();
  });
});
