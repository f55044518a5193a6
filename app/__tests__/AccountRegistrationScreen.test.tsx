import { act, chooseOption, fireEvent, optionLabels, screen, valueOf, waitFor, within } from './rtl';

import AccountRegistrationScreen from '../screens/AccountRegistrationScreen';
import { sessionStore } from '../state/session';
import { accounts, customer, renderScreen, signedInAs } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

const types = [
  { id: 1, ID: 1, type_name: 'Checking', currency: 'USD' },
  { id: 2, ID: 2, type_name: 'Savings', currency: 'EUR' },
];

function server(extra: Record<string, (body: unknown) => Response> = {}) {
  return mockFetch({
    'GET /api/user/accounts': () => jsonResponse(200, accounts),
    'GET /api/user/account-types': () => jsonResponse(200, types),
    ...extra,
  });
}

signedInAs(customer);


const accountCalls = (calls: Array<{ method: string; path: string }>) =>
  calls.filter((c) => c.method === 'GET' && c.path === '/api/user/accounts').length;

describe('Account Registration', () => {
  it('lists the accounts with $ balances (2 decimals), currency, date, and labelled edit/delete icons', async () => {
    server();
    renderScreen(AccountRegistrationScreen);
    expect(screen.getByText('Account Registration')).toBeTruthy();
    const table = await screen.findByTestId('accounts-table');
    await waitFor(() => expect(within(table).getByText('$1,250.50')).toBeTruthy());
    expect(within(table).getByText('$0.10')).toBeTruthy();
    expect(within(table).getByText('2026-02-03')).toBeTruthy();
    expect(within(table).getAllByText('USD')).toHaveLength(2);
    for (const title of ['Name', 'Account Number', 'Type', 'Balance', 'Currency', 'Created']) expect(within(table).getByText(title)).toBeTruthy();
    expect(screen.getByLabelText('Edit account 100200300')).toBeTruthy();
    expect(screen.getByLabelText('Delete account 100200300')).toBeTruthy();
  });

  it("fetch failures: 'Failed to fetch accounts' and 'Failed to fetch account types'", async () => {
    mockFetch({
      'GET /api/user/accounts': () => jsonResponse(500),
      'GET /api/user/account-types': () => jsonResponse(500),
    });
    renderScreen(AccountRegistrationScreen);
    expect((await screen.findAllByText('Failed to fetch accounts')).length).toBeGreaterThan(0);
    expect(await screen.findByText('Failed to fetch account types')).toBeTruthy();
  });

  it('validates the form: number required, balance not negative, type required', async () => {
    const { calls } = server();
    renderScreen(AccountRegistrationScreen);
    fireEvent.press(screen.getByTestId('account-add'));
    expect(screen.getByText('Create New Account')).toBeTruthy();
    fireEvent.changeText(screen.getByTestId('account-balance'), '-5');
    fireEvent.press(screen.getByTestId('account-save'));
    expect(screen.getByText('Account number is required')).toBeTruthy();
    expect(screen.getByText('Balance cannot be negative')).toBeTruthy();
    expect(screen.getByText('Account type is required')).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('creates an account: type options show the currency, success toasts, closes and reloads', async () => {
    const { calls } = server({ 'POST /api/user/accounts': () => jsonResponse(201, accounts[0]) });
    renderScreen(AccountRegistrationScreen);
    await screen.findByText('$1,250.50');
    const before = accountCalls(calls);
    fireEvent.press(screen.getByTestId('account-add'));
    fireEvent.changeText(screen.getByTestId('account-number'), 'NEW123456');
    fireEvent.changeText(screen.getByTestId('account-balance'), '10.25');
    expect(optionLabels('account-type')).toEqual(['Checking (USD)', 'Savings (EUR)']);
    chooseOption('account-type', 'Savings (EUR)');
    fireEvent.press(screen.getByTestId('account-save'));
    expect(await screen.findByText('Account created successfully')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ account_number: 'NEW123456', balance: '10.25', account_type_id: 2 });
    await waitFor(() => expect(screen.queryByTestId('account-modal')).toBeNull());
    await waitFor(() => expect(accountCalls(calls)).toBe(before + 1));
    fireEvent.press(screen.getByTestId('account-add'));
    expect(valueOf(screen.getByTestId('account-number'))).toBe('');
  });

  it("a create failure shows the server's error, else 'Failed to create account'", async () => {
    let body: object | undefined = { error: 'Account number already exists', code: 'conflict' };
    server({ 'POST /api/user/accounts': () => jsonResponse(409, body) });
    renderScreen(AccountRegistrationScreen);
    await screen.findByText('$1,250.50');
    fireEvent.press(screen.getByTestId('account-add'));
    fireEvent.changeText(screen.getByTestId('account-number'), '100200300');
    chooseOption('account-type', 'Checking (USD)');
    fireEvent.press(screen.getByTestId('account-save'));
    expect(await screen.findByText('Account number already exists')).toBeTruthy();
    body = undefined;
    await waitFor(() => expect(screen.getByTestId('account-save')).not.toBeDisabled());
    fireEvent.press(screen.getByTestId('account-save'));
    expect(await screen.findByText('Failed to create account')).toBeTruthy();
  });

  it('edits an account in the Edit Account modal', async () => {
    const { calls } = server({ 'PUT /api/user/accounts/11': () => jsonResponse(200, accounts[0]) });
    renderScreen(AccountRegistrationScreen);
    await screen.findByText('$1,250.50');
    fireEvent.press(screen.getByLabelText('Edit account 100200300'));
    expect(screen.getByText('Edit Account')).toBeTruthy();
    expect(valueOf(screen.getByTestId('account-number'))).toBe('100200300');
    fireEvent.changeText(screen.getByTestId('account-balance'), '1300');
    fireEvent.press(screen.getByTestId('account-save'));
    expect(await screen.findByText('Account updated successfully')).toBeTruthy();
    expect(calls.find((c) => c.method === 'PUT')!.body).toEqual({ account_number: '100200300', balance: '1300', account_type_id: 1 });
  });

  it("an update failure without a server error gives 'Failed to update account'", async () => {
    server({ 'PUT /api/user/accounts/11': () => jsonResponse(500) });
    renderScreen(AccountRegistrationScreen);
    await screen.findByText('$1,250.50');
    fireEvent.press(screen.getByLabelText('Edit account 100200300'));
    fireEvent.press(screen.getByTestId('account-save'));
    expect(await screen.findByText('Failed to update account')).toBeTruthy();
  });

  it('deleting asks for confirmation; cancel does nothing; the server refusal is shown', async () => {
    const { calls } = server({
      'DELETE /api/user/accounts/11': () => jsonResponse(422, { error: 'Account balance must be zero to close it', code: 'balance_not_zero' }),
      'DELETE /api/user/accounts/12': () => jsonResponse(204),
    });
    renderScreen(AccountRegistrationScreen);
    await screen.findByText('$1,250.50');
    fireEvent.press(screen.getByLabelText('Delete account 100200300'));
    expect(screen.getByText('Are you sure you want to delete this account?')).toBeTruthy();
    fireEvent.press(screen.getByTestId('account-delete-dialog-cancel'));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    fireEvent.press(screen.getByLabelText('Delete account 100200300'));
    fireEvent.press(screen.getByTestId('account-delete-dialog-confirm'));
    expect(await screen.findByText('Account balance must be zero to close it')).toBeTruthy();
    fireEvent.press(screen.getByLabelText('Delete account 100200301'));
    fireEvent.press(screen.getByTestId('account-delete-dialog-confirm'));
    expect(await screen.findByText('Account deleted successfully')).toBeTruthy();
  });

  it("a delete failure without a server error gives 'Failed to delete account'", async () => {
    server({ 'DELETE /api/user/accounts/12': () => jsonResponse(500) });
    renderScreen(AccountRegistrationScreen);
    await screen.findByText('$1,250.50');
    fireEvent.press(screen.getByLabelText('Delete account 100200301'));
    fireEvent.press(screen.getByTestId('account-delete-dialog-confirm'));
    expect(await screen.findByText('Failed to delete account')).toBeTruthy();
  });

  it("submitting while not logged in gives 'Please login to continue' and goes to /auth", async () => {
    const { calls } = server();
    renderScreen(AccountRegistrationScreen);
    await screen.findByText('$1,250.50');
    fireEvent.press(screen.getByTestId('account-add'));
    fireEvent.changeText(screen.getByTestId('account-number'), 'NEW123456');
    chooseOption('account-type', 'Checking (USD)');
    await act(() => sessionStore.signOut());
    fireEvent.press(screen.getByTestId('account-save'));
    expect(await screen.findByText('Please login to continue')).toBeTruthy();
    expect(await screen.findByTestId('probe')).toHaveTextContent(/^ROUTE Auth/);
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });
});
