import { chooseOption, fireEvent, screen, waitFor } from './rtl';

import AccountRegistrationScreen from '../screens/AccountRegistrationScreen';
import { accounts, customer, renderScreen, signedInAs } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

const types = [{ id: 1, ID: 1, type_name: 'Checking', currency: 'USD' }];

/** customer_funding as GET /api/config answers it. */
function server(customerFunding: boolean, extra: Parameters<typeof mockFetch>[0] = {}) {
  return mockFetch({
    'GET /api/config': () => jsonResponse(200, { customer_funding: customerFunding, require_2fa_for_admins: false }),
    'GET /api/user/accounts': () => jsonResponse(200, accounts),
    'GET /api/user/account-types': () => jsonResponse(200, types),
    ...extra,
  });
}

signedInAs(customer);

/** Waits for GET /api/config to be answered, so the form shows what it says. */
async function configRead(calls: Array<{ path: string }>) {
  await waitFor(() => expect(calls.some((c) => c.path === '/api/config')).toBe(true));
  await screen.findByText('$1,250.50');
}

describe('customer_funding', () => {
  it('off: the new-account form has no Initial Balance; the account opens at 0', async () => {
    const { calls } = server(false, {
      'POST /api/user/accounts': (body) => jsonResponse(201, { ...accounts[0], id: 30, account_number: 'NEW123456', balance: 0, ...(body as object) }),
    });
    renderScreen(AccountRegistrationScreen);
    await configRead(calls);
    fireEvent.press(screen.getByTestId('account-add'));
    await screen.findByTestId('account-number');
    expect(screen.queryByTestId('account-balance')).toBeNull();
    expect(screen.queryByText('Initial Balance')).toBeNull();
    fireEvent.changeText(screen.getByTestId('account-number'), 'NEW123456');
    chooseOption('account-type', 'Checking (USD)');
    fireEvent.press(screen.getByTestId('account-save'));
    expect(await screen.findByText('Account created successfully')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ account_number: 'NEW123456', balance: '0', account_type_id: 1 });
  });

  it('off: editing an account shows no balance field and sends the balance unchanged', async () => {
    const { calls } = server(false, {
      'PUT /api/user/accounts/11': (body) => jsonResponse(200, { ...accounts[0], ...(body as object) }),
    });
    renderScreen(AccountRegistrationScreen);
    await configRead(calls);
    fireEvent.press(screen.getByTestId('account-edit-100200300'));
    await screen.findByTestId('account-number');
    expect(screen.queryByTestId('account-balance')).toBeNull();
    fireEvent.press(screen.getByTestId('account-save'));
    expect(await screen.findByText('Account updated successfully')).toBeTruthy();
    expect(calls.find((c) => c.method === 'PUT')?.body).toMatchObject({ account_number: '100200300', balance: '1250.50' });
  });

  it('on (the default): the Initial Balance field is there', async () => {
    const { calls } = server(true);
    renderScreen(AccountRegistrationScreen);
    await configRead(calls);
    fireEvent.press(screen.getByTestId('account-add'));
    expect(await screen.findByTestId('account-balance')).toBeTruthy();
    expect(screen.getByText('Initial Balance')).toBeTruthy();
  });
});
