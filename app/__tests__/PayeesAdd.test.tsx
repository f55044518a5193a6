import { act, fireEvent, screen, waitFor, within } from './rtl';

import MoneyRequestScreen from '../screens/MoneyRequestScreen';
import TransferFundsScreen from '../screens/TransferFundsScreen';
import type { Payee } from '../services/api/types';
import { accounts, customer, renderScreen, signedInAs, transactions } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

const landlord: Payee = { id: 5, nickname: 'Landlord', account_number: '900800700', holder_name: 'Bob Brown', created_at: '2026-05-01T10:00:00Z' };
const carol: Payee = { id: 9, nickname: 'Carol', account_number: '123456789', holder_name: 'Carol Jones', created_at: '2026-06-01T00:00:00Z' };

function server(extra: Parameters<typeof mockFetch>[0] = {}) {
  return mockFetch({
    'GET /api/user/accounts': () => jsonResponse(200, accounts),
    'GET /api/user/transactions/history': () => jsonResponse(200, { data: transactions, next_cursor: null }),
    'GET /api/user/transactions/money-request': () => jsonResponse(200, []),
    'GET /api/user/account-details': () => jsonResponse(200, { full_name: 'Carol Jones', account_number: '123456789' }),
    'GET /api/user/payees': () => jsonResponse(200, [landlord]),
    'GET /api/user/limits': () => jsonResponse(200, []),
    ...extra,
  });
}

const posts = (calls: Array<{ method: string; path: string }>) => calls.filter((c) => c.method === 'POST' && c.path === '/api/user/payees');
const payeeLists = (calls: Array<{ method: string; path: string }>) => calls.filter((c) => c.method === 'GET' && c.path === '/api/user/payees');

signedInAs(customer);
afterEach(() => jest.useRealTimers());

/** Transfer Funds → Payees tab → Add payee. */
async function openAddPayee() {
  renderScreen(TransferFundsScreen);
  fireEvent.press(await screen.findByTestId('transfer-tab-payees'));
  const table = await screen.findByTestId('payees-table');
  await waitFor(() => expect(within(table).getByText('Landlord')).toBeTruthy());
  fireEvent.press(screen.getByTestId('payee-add-open'));
  expect(await screen.findByTestId('payee-add-modal')).toBeTruthy();
}

describe('Add payee (Payees tab)', () => {
  it("names the holder as the number is typed; Save → POST, 'Payee saved', the form closes and the list is fetched again", async () => {
    jest.useFakeTimers();
    let list = [landlord];
    const { calls } = server({
      'GET /api/user/payees': () => jsonResponse(200, list),
      'POST /api/user/payees': () => {
        list = [carol, landlord];
        return jsonResponse(201, carol);
      },
    });
    await openAddPayee();
    const listedBefore = payeeLists(calls).length;

    fireEvent.changeText(screen.getByTestId('payee-add-nickname'), ' Carol ');
    fireEvent.changeText(screen.getByTestId('payee-add-account'), '123456789');
    expect(screen.queryByTestId('payee-add-holder')).toBeNull();
    await act(async () => {
      jest.advanceTimersByTime(1000);
    });
    expect(await screen.findByTestId('payee-add-holder')).toHaveTextContent('Carol Jones');

    fireEvent.press(screen.getByTestId('payee-add-submit'));
    expect(await screen.findByText('Payee saved')).toBeTruthy();
    expect(posts(calls).map((c) => (c as { body?: unknown }).body)).toEqual([{ nickname: 'Carol', account_number: '123456789' }]);
    await waitFor(() => expect(screen.queryByTestId('payee-add-modal')).toBeNull());
    // The list is refreshed from the server (invalidated), and shows the new payee.
    await waitFor(() => expect(payeeLists(calls).length).toBeGreaterThan(listedBefore));
    const table = screen.getByTestId('payees-table');
    await waitFor(() => expect(within(table).getByText('Carol')).toBeTruthy());
    expect(within(table).getByText('Carol Jones')).toBeTruthy();
    expect(within(table).getByText('Landlord')).toBeTruthy();

    // Opened again, the form is empty.
    fireEvent.press(screen.getByTestId('payee-add-open'));
    expect(await screen.findByTestId('payee-add-modal')).toBeTruthy();
    expect(screen.getByTestId('payee-add-nickname')).toHaveDisplayValue('');
    expect(screen.getByTestId('payee-add-account')).toHaveDisplayValue('');
  });

  for (const [status, code, sentence] of [
    [404, 'account_not_found', 'Account not found'],
    [409, 'payee_exists', 'This payee is already saved'],
    [422, 'own_account', 'You cannot save your own account as a payee'],
  ] as const) {
    it(`a refused save (${status} ${code}) shows the server's sentence in the form, which stays open`, async () => {
      const { calls } = server({ 'POST /api/user/payees': () => jsonResponse(status, { error: sentence, code }) });
      await openAddPayee();
      fireEvent.changeText(screen.getByTestId('payee-add-nickname'), 'Carol');
      fireEvent.changeText(screen.getByTestId('payee-add-account'), '123456789');
      fireEvent.press(screen.getByTestId('payee-add-submit'));
      expect(await screen.findByTestId('payee-add-error')).toHaveTextContent(sentence);
      expect(posts(calls)).toHaveLength(1);
      expect(screen.getByTestId('payee-add-modal')).toBeTruthy();
      expect(screen.queryByText('Payee saved')).toBeNull();
      // Editing a field clears the sentence.
      fireEvent.changeText(screen.getByTestId('payee-add-nickname'), 'Carol J');
      expect(screen.queryByTestId('payee-add-error')).toBeNull();
    });
  }

  it('empty fields and a nickname over 100 characters are refused in the app, with no POST', async () => {
    const { calls } = server({ 'POST /api/user/payees': () => jsonResponse(201, carol) });
    await openAddPayee();

    fireEvent.press(screen.getByTestId('payee-add-submit'));
    expect(await screen.findByTestId('payee-add-error')).toHaveTextContent('Nickname and account number are required.');

    fireEvent.changeText(screen.getByTestId('payee-add-nickname'), 'Carol');
    fireEvent.press(screen.getByTestId('payee-add-submit'));
    expect(await screen.findByTestId('payee-add-error')).toHaveTextContent('Nickname and account number are required.');

    fireEvent.changeText(screen.getByTestId('payee-add-nickname'), '   ');
    fireEvent.changeText(screen.getByTestId('payee-add-account'), '123456789');
    fireEvent.press(screen.getByTestId('payee-add-submit'));
    expect(await screen.findByTestId('payee-add-error')).toHaveTextContent('Nickname and account number are required.');

    fireEvent.changeText(screen.getByTestId('payee-add-nickname'), 'x'.repeat(101));
    fireEvent.press(screen.getByTestId('payee-add-submit'));
    expect(await screen.findByTestId('payee-add-error')).toHaveTextContent('Nickname can be at most 100 characters.');
    expect(posts(calls)).toHaveLength(0);

    // 100 characters is allowed.
    fireEvent.changeText(screen.getByTestId('payee-add-nickname'), 'x'.repeat(100));
    fireEvent.press(screen.getByTestId('payee-add-submit'));
    expect(await screen.findByText('Payee saved')).toBeTruthy();
    expect(posts(calls)).toHaveLength(1);
  });

  it('Cancel closes the form without a POST', async () => {
    const { calls } = server();
    await openAddPayee();
    fireEvent.changeText(screen.getByTestId('payee-add-nickname'), 'Carol');
    fireEvent.press(screen.getByTestId('payee-add-cancel'));
    await waitFor(() => expect(screen.queryByTestId('payee-add-modal')).toBeNull());
    expect(posts(calls)).toHaveLength(0);
  });
});

describe('"Save as payee" on New Money Request', () => {
  async function typeOtherAccount() {
    renderScreen(MoneyRequestScreen);
    fireEvent.press(await screen.findByTestId('request-new'));
    fireEvent.changeText(screen.getByTestId('request-to'), '123456789');
    // Nothing to save before the lookup names the holder.
    expect(screen.queryByTestId('request-save-payee-submit')).toBeNull();
    await act(async () => {
      jest.advanceTimersByTime(1000);
    });
    expect(await screen.findByTestId('request-recipient-name')).toHaveTextContent('Carol Jones');
  }

  it('after the lookup: POST {nickname, account_number}, then the payee is picked for the request', async () => {
    jest.useFakeTimers();
    let list = [landlord];
    const { calls } = server({
      'GET /api/user/payees': () => jsonResponse(200, list),
      'POST /api/user/payees': () => {
        list = [carol, landlord];
        return jsonResponse(201, carol);
      },
      'POST /api/user/money-request': () => jsonResponse(201, { message: 'Money request created successfully', data: {} }),
    });
    await typeOtherAccount();

    fireEvent.press(screen.getByTestId('request-save-payee-submit'));
    expect(await screen.findByText('Nickname and account number are required.')).toBeTruthy();
    expect(posts(calls)).toHaveLength(0);

    fireEvent.changeText(screen.getByTestId('request-save-payee-nickname'), ' Carol ');
    fireEvent.press(screen.getByTestId('request-save-payee-submit'));
    expect(await screen.findByText('Payee saved')).toBeTruthy();
    expect(posts(calls).map((c) => (c as { body?: unknown }).body)).toEqual([{ nickname: 'Carol', account_number: '123456789' }]);
    await waitFor(() => expect(screen.queryByTestId('request-save-payee-submit')).toBeNull());
    expect(screen.getByTestId('request-recipient-name')).toHaveTextContent('Carol Jones');
  });

  it("a refused save (409) shows the server's sentence and keeps the save row", async () => {
    jest.useFakeTimers();
    server({ 'POST /api/user/payees': () => jsonResponse(409, { error: 'This payee is already saved', code: 'payee_exists' }) });
    await typeOtherAccount();
    fireEvent.changeText(screen.getByTestId('request-save-payee-nickname'), 'Carol');
    fireEvent.press(screen.getByTestId('request-save-payee-submit'));
    expect(await screen.findByText('This payee is already saved')).toBeTruthy();
    expect(screen.getByTestId('request-save-payee-submit')).toBeTruthy();
  });
});
