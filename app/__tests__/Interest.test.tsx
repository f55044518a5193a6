import { screen, waitFor } from './rtl';

import AccountRegistrationScreen from '../screens/AccountRegistrationScreen';
import type { Account } from '../services/api/types';
import { accounts, customer, renderScreen, signedInAs } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

signedInAs(customer);

const euroSavings: Account = { ...accounts[0], id: 13, account_number: '100200399', type_name: 'Euro Savings', account_type_id: 3, balance: 500, currency: 'EUR' };
const types = [
  { id: 1, ID: 1, type_name: 'Checking', currency: 'USD', interest_rate: 0 },
  { id: 2, ID: 2, type_name: 'Savings', currency: 'USD', interest_rate: 2 },
  { id: 3, ID: 3, type_name: 'Euro Savings', currency: 'EUR', interest_rate: 2.125 },
];

function server(extra: Parameters<typeof mockFetch>[0] = {}) {
  return mockFetch({
    'GET /api/user/accounts': () => jsonResponse(200, [...accounts, euroSavings]),
    'GET /api/user/account-types': () => jsonResponse(200, types),
    'GET /api/config': () => jsonResponse(200, { customer_funding: true }),
    'GET /api/user/accounts/12/interest': () => jsonResponse(200, { rate: 2, accrued: 0.123456, last_posted_at: '2026-05-01T00:00:00Z' }),
    'GET /api/user/accounts/13/interest': () => jsonResponse(200, { rate: 2.125, accrued: 1.2, last_posted_at: null }),
    ...extra,
  });
}

it('shows the rate, the interest accrued (4 to 6 decimals) and the last payment for accounts whose type earns interest', async () => {
  const { calls } = server();
  renderScreen(AccountRegistrationScreen);
  expect(await screen.findByTestId('account-interest-100200301')).toHaveTextContent(/^2\.00 % a year · accrued \$0\.123456/);
  expect(screen.getByTestId('account-interest-100200301')).toHaveTextContent(/Last paid 2026-05-01$/);
  expect(await screen.findByTestId('account-interest-100200399')).toHaveTextContent('2.125 % a year · accrued €1.2000');
  expect(screen.getByTestId('account-interest-100200399')).not.toHaveTextContent(/Last paid/);
  // Checking earns nothing: nothing shown, nothing asked.
  expect(screen.queryByTestId('account-interest-100200300')).toBeNull();
  await waitFor(() => expect(calls.filter((c) => /\/interest$/.test(c.path)).map((c) => c.path).sort()).toEqual(['/api/user/accounts/12/interest', '/api/user/accounts/13/interest']));
});

it('a failed interest call still shows the rate', async () => {
  server({ 'GET /api/user/accounts/12/interest': () => jsonResponse(500, { error: 'boom', code: 'internal' }) });
  renderScreen(AccountRegistrationScreen);
  await waitFor(() => expect(screen.getByTestId('account-interest-100200301')).toHaveTextContent('2.00 % a year'));
  expect(screen.getByTestId('account-interest-100200301')).not.toHaveTextContent(/accrued/);
});
