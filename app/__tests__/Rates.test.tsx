import { chooseOption, fireEvent, screen, selectedOption, valueOf, waitFor, within } from './rtl';

import RatesScreen from '../screens/RatesScreen';
import { adminUser, renderScreen, signedInAs } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

signedInAs(adminUser, 'tok-admin');

const types = [
  { id: 1, type_name: 'Checking', currency: 'USD', interest_rate: 0 },
  { id: 2, type_name: 'Savings', currency: 'USD', interest_rate: 2 },
];

function server(extra: Parameters<typeof mockFetch>[0] = {}) {
  let rates = [
    { base: 'EUR', quote: 'USD', rate: 1.0842, updated_at: '2026-06-01T09:00:00Z' },
    { base: 'GBP', quote: 'EUR', rate: 1.17, updated_at: '2026-06-01T09:00:00Z' },
  ];
  const mock = mockFetch({
    'GET /api/fx-rates': () => jsonResponse(200, rates),
    'GET /api/admin/account-types': () => jsonResponse(200, types),
    'PUT /api/admin/fx-rates/GBP/USD': (body) => {
      const row = { base: 'GBP', quote: 'USD', rate: (body as { rate: number }).rate, updated_at: '2026-06-01T10:00:00Z' };
      rates = [...rates, row];
      return jsonResponse(200, row);
    },
    ...extra,
  });
  return mock;
}

it('lists the rates and the account types with their interest rates', async () => {
  server();
  renderScreen(RatesScreen);
  const table = await screen.findByTestId('fx-rates-table');
  await waitFor(() => expect(within(table).getByText('1 EUR = 1.0842 USD')).toBeTruthy());
  expect(within(table).getByText('EUR/USD')).toBeTruthy();
  const interest = screen.getByTestId('interest-rates-table');
  await waitFor(() => expect(within(interest).getByText('2.00 % a year')).toBeTruthy());
  expect(within(interest).getByText('0.00 % a year')).toBeTruthy();
});

it('sets a pair (PUT /api/admin/fx-rates/{base}/{quote}) after checking the rate; the list is fetched again', async () => {
  const { calls } = server();
  renderScreen(RatesScreen);
  await screen.findByText('1 EUR = 1.0842 USD');
  chooseOption('fx-rate-base', 'GBP');
  chooseOption('fx-rate-quote', 'USD');
  fireEvent.changeText(screen.getByTestId('fx-rate-value'), '1.123456789');
  fireEvent.press(screen.getByTestId('fx-rate-submit'));
  expect(await screen.findByText('Rate must be a positive number with at most 8 decimals.')).toBeTruthy();
  chooseOption('fx-rate-quote', 'GBP');
  fireEvent.changeText(screen.getByTestId('fx-rate-value'), '1,27');
  fireEvent.press(screen.getByTestId('fx-rate-submit'));
  expect(await screen.findByText('Choose two different currencies.')).toBeTruthy();
  expect(calls.some((c) => c.method === 'PUT')).toBe(false);

  chooseOption('fx-rate-quote', 'USD');
  fireEvent.press(screen.getByTestId('fx-rate-submit'));
  expect(await screen.findByText('Rate set: 1 GBP = 1.27 USD')).toBeTruthy();
  expect(calls.find((c) => c.method === 'PUT')).toMatchObject({ path: '/api/admin/fx-rates/GBP/USD', body: { rate: 1.27 } });
  expect(await screen.findByText('1 GBP = 1.27 USD')).toBeTruthy();
});

it("a row's Edit fills the form", async () => {
  server();
  renderScreen(RatesScreen);
  fireEvent.press(await screen.findByTestId('fx-rate-edit-GBP-EUR'));
  await waitFor(() => expect(valueOf(screen.getByTestId('fx-rate-value'))).toBe('1.17'));
  expect(selectedOption('fx-rate-base')).toBe('GBP');
  expect(selectedOption('fx-rate-quote')).toBe('EUR');
});

it("edits an account type's interest rate (PUT /api/admin/account-types/{id})", async () => {
  const { calls } = server({
    'PUT /api/admin/account-types/2': (body) => jsonResponse(200, { ...types[1], interest_rate: (body as { interest_rate: number }).interest_rate }),
  });
  renderScreen(RatesScreen);
  fireEvent.press(await screen.findByTestId('interest-rate-edit-2'));
  fireEvent.changeText(await screen.findByTestId('interest-rate-value'), '101');
  fireEvent.press(screen.getByTestId('interest-rate-submit'));
  expect(await screen.findByText('Interest rate must be between 0 and 100, with at most 4 decimals.')).toBeTruthy();
  fireEvent.changeText(screen.getByTestId('interest-rate-value'), '2,5');
  fireEvent.press(screen.getByTestId('interest-rate-submit'));
  expect(await screen.findByText('Interest rate of Savings set to 2.50 % a year')).toBeTruthy();
  expect(calls.find((c) => c.method === 'PUT')).toMatchObject({ path: '/api/admin/account-types/2', body: { interest_rate: 2.5 } });
  await waitFor(() => expect(screen.queryByTestId('interest-rate-modal')).toBeNull());
});
