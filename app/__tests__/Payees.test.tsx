import { act, chooseOption, fireEvent, screen, valueOf, waitFor, within } from './rtl';

import MoneyRequestScreen from '../screens/MoneyRequestScreen';
import TransferFundsScreen from '../screens/TransferFundsScreen';
import type { Payee } from '../services/api/types';
import { accounts, customer, renderScreen, signedInAs, transactions } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

const payees: Payee[] = [
  { id: 5, nickname: 'Landlord', account_number: '900800700', holder_name: 'Bob Brown', created_at: '2026-05-01T10:00:00Z' },
  { id: 6, nickname: 'Gym', account_number: '555444333', holder_name: 'Fit Co', created_at: '2026-05-02T10:00:00Z' },
];

function server(extra: Parameters<typeof mockFetch>[0] = {}) {
  return mockFetch({
    'GET /api/user/accounts': () => jsonResponse(200, accounts),
    'GET /api/user/transactions/history': () => jsonResponse(200, { data: transactions, next_cursor: null }),
    'GET /api/user/transactions/money-request': () => jsonResponse(200, []),
    'GET /api/user/account-details': () => jsonResponse(200, { full_name: 'Carol Jones', account_number: '123456789' }),
    'GET /api/user/payees': () => jsonResponse(200, payees),
    'GET /api/user/limits': () => jsonResponse(200, []),
    ...extra,
  });
}

const lookups = (calls: Array<{ path: string }>) => calls.filter((c) => c.path === '/api/user/account-details');

signedInAs(customer);
afterEach(() => jest.useRealTimers());

async function openTransferForm() {
  renderScreen(TransferFundsScreen);
  await screen.findByText('Rent share');
  fireEvent.press(screen.getByTestId('transfer-open'));
}

describe('payees on Transfer Funds', () => {
  it("picking a payee fills the number and shows the holder's name without a lookup", async () => {
    jest.useFakeTimers();
    const { calls } = server({
      'POST /api/user/money-transfer': () => jsonResponse(201, { message: 'Transfer successful', transaction: transactions[0] }),
    });
    await openTransferForm();
    await act(async () => {
      jest.advanceTimersByTime(10);
    });
    await waitFor(() => expect(screen.getByTestId('transfer-payee')).toBeTruthy());
    chooseOption('transfer-payee', 'Landlord (900800700)');
    expect(valueOf(screen.getByTestId('transfer-to'))).toBe('900800700');
    expect(screen.getByTestId('transfer-recipient-name')).toHaveTextContent('Bob Brown');
    await act(async () => {
      jest.advanceTimersByTime(3000);
    });
    expect(lookups(calls)).toHaveLength(0);
    // A payee needs no "Save as payee".
    expect(screen.queryByTestId('transfer-save-payee-submit')).toBeNull();

    chooseOption('transfer-from', '100200300 ($1,250.50)');
    fireEvent.changeText(screen.getByTestId('transfer-amount'), '5');
    fireEvent.press(screen.getByTestId('transfer-submit'));
    await act(async () => {
      jest.advanceTimersByTime(10);
    });
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ to_account_id: '900800700', amount: '5' }));
    expect(lookups(calls)).toHaveLength(0);
  });

  it('editing the number away from the payee forgets it and looks the new number up', async () => {
    jest.useFakeTimers();
    const { calls } = server();
    await openTransferForm();
    await waitFor(() => expect(screen.getByTestId('transfer-payee')).toBeTruthy());
    chooseOption('transfer-payee', 'Gym (555444333)');
    expect(screen.getByTestId('transfer-recipient-name')).toHaveTextContent('Fit Co');
    fireEvent.changeText(screen.getByTestId('transfer-to'), '123456789');
    expect(screen.queryByTestId('transfer-recipient-name')).toBeNull();
    await act(async () => {
      jest.advanceTimersByTime(1000);
    });
    expect(lookups(calls)).toHaveLength(1);
    expect(await screen.findByTestId('transfer-recipient-name')).toHaveTextContent('Carol Jones');
  });

  it('"Save as payee" after a looked-up number: POST {nickname, account_number}, then the payee is picked', async () => {
    jest.useFakeTimers();
    const saved: Payee = { id: 9, nickname: 'Carol', account_number: '123456789', holder_name: 'Carol Jones', created_at: '2026-06-01T00:00:00Z' };
    const { calls } = server({ 'POST /api/user/payees': () => jsonResponse(201, saved) });
    await openTransferForm();
    fireEvent.changeText(screen.getByTestId('transfer-to'), '123456789');
    await act(async () => {
      jest.advanceTimersByTime(1000);
    });
    await screen.findByTestId('transfer-recipient-name');
    // No nickname: refused in the app.
    fireEvent.press(screen.getByTestId('transfer-save-payee-submit'));
    expect(await screen.findByText('Nickname and account number are required.')).toBeTruthy();
    expect(calls.some((c) => c.path === '/api/user/payees' && c.method === 'POST')).toBe(false);

    fireEvent.changeText(screen.getByTestId('transfer-save-payee-nickname'), ' Carol ');
    fireEvent.press(screen.getByTestId('transfer-save-payee-submit'));
    expect(await screen.findByText('Payee saved')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST' && c.path === '/api/user/payees')?.body).toEqual({ nickname: 'Carol', account_number: '123456789' });
    await waitFor(() => expect(screen.queryByTestId('transfer-save-payee-submit')).toBeNull());
    expect(screen.getByTestId('transfer-recipient-name')).toHaveTextContent('Carol Jones');
  });

  for (const [status, code, sentence] of [
    [404, 'not_found', 'Account not found'],
    [409, 'payee_exists', 'This payee is already saved'],
    [422, 'own_account', 'You cannot save your own account as a payee'],
  ] as const) {
    it(`a refused save (${status}) shows the server's sentence`, async () => {
      jest.useFakeTimers();
      server({ 'POST /api/user/payees': () => jsonResponse(status, { error: sentence, code }) });
      await openTransferForm();
      fireEvent.changeText(screen.getByTestId('transfer-to'), '123456789');
      await act(async () => {
        jest.advanceTimersByTime(1000);
      });
      await screen.findByTestId('transfer-recipient-name');
      fireEvent.changeText(screen.getByTestId('transfer-save-payee-nickname'), 'Carol');
      fireEvent.press(screen.getByTestId('transfer-save-payee-submit'));
      expect(await screen.findByText(sentence)).toBeTruthy();
      expect(screen.getByTestId('transfer-save-payee-submit')).toBeTruthy();
    });
  }

  it('the Payees tab lists them; Delete asks, then DELETE and the row goes', async () => {
    let list = payees;
    const { calls } = server({
      'GET /api/user/payees': () => jsonResponse(200, list),
      'DELETE /api/user/payees/5': () => {
        list = payees.filter((p) => p.id !== 5);
        return jsonResponse(204);
      },
    });
    renderScreen(TransferFundsScreen);
    await screen.findByText('Rent share');
    fireEvent.press(screen.getByTestId('transfer-tab-payees'));
    const table = await screen.findByTestId('payees-table');
    await waitFor(() => expect(within(table).getByText('Landlord')).toBeTruthy());
    expect(within(table).getByText('Bob Brown')).toBeTruthy();
    expect(screen.queryByText('Rent share')).toBeNull();

    fireEvent.press(screen.getByTestId('payee-delete-5'));
    expect(await screen.findByText('Delete Landlord (900800700) from your payees?')).toBeTruthy();
    // Cancel keeps it.
    fireEvent.press(screen.getByTestId('payee-delete-dialog-cancel'));
    await waitFor(() => expect(screen.queryByTestId('payee-delete-dialog')).toBeNull());
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);

    fireEvent.press(screen.getByTestId('payee-delete-5'));
    fireEvent.press(await screen.findByTestId('payee-delete-dialog-confirm'));
    expect(await screen.findByText('Payee deleted')).toBeTruthy();
    expect(calls.find((c) => c.method === 'DELETE')?.path).toBe('/api/user/payees/5');
    await waitFor(() => expect(screen.queryByText('Landlord')).toBeNull());
    expect(screen.getByText('Gym')).toBeTruthy();
  });

  it("a refused delete shows the server's sentence; an empty list says how to add one", async () => {
    server({ 'DELETE /api/user/payees/6': () => jsonResponse(404, { error: 'Payee not found', code: 'not_found' }) });
    renderScreen(TransferFundsScreen);
    fireEvent.press(screen.getByTestId('transfer-tab-payees'));
    fireEvent.press(await screen.findByTestId('payee-delete-6'));
    fireEvent.press(await screen.findByTestId('payee-delete-dialog-confirm'));
    expect(await screen.findByText('Payee not found')).toBeTruthy();
  });

  it('no payees: the empty text', async () => {
    server({ 'GET /api/user/payees': () => jsonResponse(200, []) });
    renderScreen(TransferFundsScreen);
    fireEvent.press(screen.getByTestId('transfer-tab-payees'));
    expect(await screen.findByText('No saved payees. Add one, or save one from the transfer form.')).toBeTruthy();
  });
});

describe('payees on New Money Request', () => {
  it("picking a payee fills the To account and names the holder; the request goes to that number, with no lookup", async () => {
    const { calls } = server({
      'POST /api/user/money-request': () => jsonResponse(201, { message: 'Money request created successfully', data: {} }),
    });
    renderScreen(MoneyRequestScreen);
    fireEvent.press(await screen.findByTestId('request-new'));
    await waitFor(() => expect(screen.getByTestId('request-payee')).toBeTruthy());
    chooseOption('request-payee', 'Landlord (900800700)');
    expect(screen.getByTestId('request-recipient-name')).toHaveTextContent('Bob Brown');
    chooseOption('request-from', '100200300');
    fireEvent.changeText(screen.getByTestId('request-amount'), '20');
    fireEvent.press(screen.getByTestId('request-submit'));
    expect(await screen.findByText('Money request created successfully!')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ requester_id: '100200300', recipient_id: '900800700', amount: '20' });
    expect(lookups(calls)).toHaveLength(0);
  });

  it('typing another number drops the name', async () => {
    server();
    renderScreen(MoneyRequestScreen);
    fireEvent.press(await screen.findByTestId('request-new'));
    await waitFor(() => expect(screen.getByTestId('request-payee')).toBeTruthy());
    chooseOption('request-payee', 'Gym (555444333)');
    expect(screen.getByTestId('request-recipient-name')).toHaveTextContent('Fit Co');
    fireEvent.changeText(screen.getByTestId('request-to'), '555444');
    expect(screen.queryByTestId('request-recipient-name')).toBeNull();
  });
});
