import { act, chooseOption, fireEvent, optionLabels, screen, waitFor } from './rtl';

import ExchangeScreen from '../screens/ExchangeScreen';
import type { Account, FxQuote } from '../services/api/types';
import { quoteDeadline } from '../hooks/useExchangeForm';
import { accounts, customer, renderScreen, signedInAs, transactions } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

const euro: Account = { ...accounts[0], id: 13, account_number: '100200399', type_name: 'Euro Savings', account_type_id: 3, balance: 80, currency: 'EUR' };

signedInAs(customer);
afterEach(() => jest.useRealTimers());

/** A quote as the server answers it: held 30 s from now (the clock the test runs). */
function quoteFor(body: { amount: number; to_account_id: string }, n = 1): FxQuote {
  return {
    id: 700 + n,
    from_currency: 'USD',
    to_currency: 'EUR',
    rate: 0.92,
    amount: Number(body.amount),
    converted_amount: Math.round(Number(body.amount) * 0.92 * 0.995 * 100) / 100,
    expires_at: new Date(Date.now() + 30_000).toISOString(),
  };
}

function server(extra: Parameters<typeof mockFetch>[0] = {}) {
  let quotes = 0;
  const mock = mockFetch({
    'GET /api/user/accounts': () => jsonResponse(200, [...accounts, euro]),
    'POST /api/user/fx-quotes': (body) => jsonResponse(201, quoteFor(body as { amount: number; to_account_id: string }, ++quotes)),
    ...extra,
  });
  return mock;
}

const exchanges = (calls: ReturnType<typeof mockFetch>['calls']) => calls.filter((c) => c.method === 'POST' && c.path === '/api/user/fx-transfers');

/** Fills USD 100200300 → EUR 100200399, 100, and asks for a quote. */
async function quote(amount = '100') {
  renderScreen(ExchangeScreen);
  await waitFor(() => expect(optionLabels('exchange-from')).toContain('100200300 · Checking ($1,250.50)'));
  chooseOption('exchange-from', '100200300 · Checking ($1,250.50)');
  chooseOption('exchange-to', '100200399 · Euro Savings (EUR)');
  fireEvent.changeText(screen.getByTestId('exchange-amount'), amount);
  fireEvent.press(screen.getByTestId('exchange-quote'));
  await screen.findByTestId('exchange-quote-card');
}

it('offers as targets only the own accounts in another currency, or a typed number', async () => {
  server();
  renderScreen(ExchangeScreen);
  await waitFor(() => expect(optionLabels('exchange-from')).toHaveLength(3));
  chooseOption('exchange-from', '100200300 · Checking ($1,250.50)');
  expect(optionLabels('exchange-to')).toEqual(['100200399 · Euro Savings (EUR)', 'Another account number']);
});

it('a quote shows the rate, what is sent and received, and the seconds left; the body is the form', async () => {
  const { calls } = server();
  await quote();
  expect(screen.getByTestId('exchange-rate')).toHaveTextContent('1 USD = 0.92 EUR');
  expect(screen.getByTestId('exchange-send')).toHaveTextContent('$100.00');
  expect(screen.getByTestId('exchange-receive')).toHaveTextContent('€91.54');
  expect(screen.getByText('You receive')).toBeTruthy();
  expect(screen.getByTestId('exchange-countdown')).toHaveTextContent(/This rate is held for (30|29) more seconds\./);
  expect(calls.find((c) => c.path === '/api/user/fx-quotes')?.body).toEqual({ from_account_id: '100200300', to_account_id: '100200399', amount: 100 });
  expect(screen.getByTestId('exchange-confirm')).not.toBeDisabled();
});

it('when the countdown ends, Confirm is disabled and "Get a new quote" asks again', async () => {
  jest.useFakeTimers({ now: Date.parse('2026-06-01T10:00:00Z') });
  const { calls } = server();
  await quote();
  expect(screen.getByTestId('exchange-countdown')).toHaveTextContent('This rate is held for 30 more seconds.');
  act(() => jest.advanceTimersByTime(29_000));
  expect(screen.getByTestId('exchange-countdown')).toHaveTextContent('This rate is held for 1 more second.');
  expect(screen.getByTestId('exchange-confirm')).not.toBeDisabled();
  expect(screen.queryByTestId('exchange-requote')).toBeNull();

  act(() => jest.advanceTimersByTime(1_000));
  expect(screen.getByTestId('exchange-countdown')).toHaveTextContent('This quote has expired.');
  expect(screen.getByTestId('exchange-confirm')).toBeDisabled();
  fireEvent.press(screen.getByTestId('exchange-confirm'));
  expect(exchanges(calls)).toHaveLength(0);

  fireEvent.press(screen.getByTestId('exchange-requote'));
  await waitFor(() => expect(screen.getByTestId('exchange-countdown')).toHaveTextContent('This rate is held for 30 more seconds.'));
  expect(calls.filter((c) => c.path === '/api/user/fx-quotes')).toHaveLength(2);
  expect(screen.getByTestId('exchange-confirm')).not.toBeDisabled();
});

it('confirms with the quote id and an Idempotency-Key; success toasts and refreshes the balances', async () => {
  const { calls } = server({
    'POST /api/user/fx-transfers': () => jsonResponse(201, { message: 'Exchange successful', transaction: transactions[0] }),
  });
  await quote();
  fireEvent.changeText(screen.getByTestId('exchange-note'), 'Holiday money');
  // The note does not change the figures: the quote stays.
  expect(screen.getByTestId('exchange-quote-card')).toBeTruthy();
  fireEvent.press(screen.getByTestId('exchange-confirm'));
  expect(await screen.findByText('Exchange successful!')).toBeTruthy();
  const [sent] = exchanges(calls);
  expect(sent.body).toEqual({ quote_id: 701, description: 'Holiday money' });
  expect(sent.headers['Idempotency-Key']).toMatch(/^[0-9a-f-]{36}$/);
  await waitFor(() => expect(calls.filter((c) => c.path === '/api/user/accounts').length).toBeGreaterThanOrEqual(2));
  expect(screen.queryByTestId('exchange-quote-card')).toBeNull();
});

for (const code of ['quote_expired', 'quote_used'] as const) {
  it(`409 ${code}: the server's sentence, no Confirm, a new quote instead`, async () => {
    const sentence = code === 'quote_expired' ? 'This quote has expired; ask for a new one' : 'This quote was already used';
    const { calls } = server({ 'POST /api/user/fx-transfers': () => jsonResponse(409, { error: sentence, code }) });
    await quote();
    fireEvent.press(screen.getByTestId('exchange-confirm'));
    expect(await screen.findByTestId('exchange-error')).toHaveTextContent(sentence);
    expect(screen.getByTestId('exchange-confirm')).toBeDisabled();
    fireEvent.press(screen.getByTestId('exchange-requote'));
    await waitFor(() => expect(screen.queryByTestId('exchange-error')).toBeNull());
    expect(screen.getByTestId('exchange-confirm')).not.toBeDisabled();
    expect(calls.filter((c) => c.path === '/api/user/fx-quotes')).toHaveLength(2);
  });
}

it('a retry of the same confirm (no answer the first time) sends the same Idempotency-Key; a new quote a new one', async () => {
  let attempt = 0;
  const { calls } = server({
    'POST /api/user/fx-transfers': () => (++attempt === 1 ? Promise.reject(new TypeError('Network request failed')) : jsonResponse(201, { message: 'Exchange successful', transaction: transactions[0] })),
  });
  await quote();
  fireEvent.press(screen.getByTestId('exchange-confirm'));
  expect(await screen.findByText('Exchange failed')).toBeTruthy();
  await waitFor(() => expect(screen.getByTestId('exchange-confirm')).not.toBeDisabled());
  fireEvent.press(screen.getByTestId('exchange-confirm'));
  expect(await screen.findByText('Exchange successful!')).toBeTruthy();
  const [first, second] = exchanges(calls);
  expect(second.headers['Idempotency-Key']).toBe(first.headers['Idempotency-Key']);

  // The next exchange is another quote: another key.
  fireEvent.changeText(screen.getByTestId('exchange-amount'), '5');
  chooseOption('exchange-from', '100200300 · Checking ($1,250.50)');
  chooseOption('exchange-to', '100200399 · Euro Savings (EUR)');
  fireEvent.press(screen.getByTestId('exchange-quote'));
  fireEvent.press(await screen.findByTestId('exchange-confirm'));
  await waitFor(() => expect(exchanges(calls)).toHaveLength(3));
  expect(exchanges(calls)[2].headers['Idempotency-Key']).not.toBe(first.headers['Idempotency-Key']);
  expect(exchanges(calls)[2].body).toMatchObject({ quote_id: 702 });
});

it('to a typed account number: "They receive"; a changed amount drops the quote', async () => {
  const { calls } = server({ 'GET /api/user/account-details': () => jsonResponse(200, { full_name: 'Bob Brown', account_number: '900800700' }) });
  renderScreen(ExchangeScreen);
  await waitFor(() => expect(optionLabels('exchange-from')).toHaveLength(3));
  chooseOption('exchange-from', '100200300 · Checking ($1,250.50)');
  chooseOption('exchange-to', 'Another account number');
  fireEvent.changeText(screen.getByTestId('exchange-to-number'), ' 900800700 ');
  fireEvent.changeText(screen.getByTestId('exchange-amount'), '12,50');
  fireEvent.press(screen.getByTestId('exchange-quote'));
  await screen.findByTestId('exchange-quote-card');
  expect(screen.getByText('They receive')).toBeTruthy();
  expect(calls.find((c) => c.path === '/api/user/fx-quotes')?.body).toEqual({ from_account_id: '100200300', to_account_id: '900800700', amount: 12.5 });
  fireEvent.changeText(screen.getByTestId('exchange-amount'), '13');
  expect(screen.queryByTestId('exchange-quote-card')).toBeNull();
});

it('a quote that arrives after the figures changed is not shown', async () => {
  // The quote's answer waits until the test lets it go.
  let release: () => void = () => undefined;
  server({ 'POST /api/user/fx-quotes': (body) => new Promise<Response>((r) => (release = () => r(jsonResponse(201, quoteFor(body as { amount: number; to_account_id: string }))))) });
  renderScreen(ExchangeScreen);
  await waitFor(() => expect(optionLabels('exchange-from')).toHaveLength(3));
  chooseOption('exchange-from', '100200300 · Checking ($1,250.50)');
  chooseOption('exchange-to', '100200399 · Euro Savings (EUR)');
  fireEvent.changeText(screen.getByTestId('exchange-amount'), '100');
  fireEvent.press(screen.getByTestId('exchange-quote'));
  fireEvent.changeText(screen.getByTestId('exchange-amount'), '200');
  await act(async () => release());
  expect(screen.queryByTestId('exchange-quote-card')).toBeNull();
});

it('refuses an empty form before asking the server', async () => {
  const { calls } = server();
  renderScreen(ExchangeScreen);
  await waitFor(() => expect(optionLabels('exchange-from')).toHaveLength(3));
  fireEvent.press(screen.getByTestId('exchange-quote'));
  expect(await screen.findByText('Amount, From Account, and To Account are required.')).toBeTruthy();
  expect(calls.some((c) => c.method === 'POST')).toBe(false);
});

it("a refused quote shows the server's sentence", async () => {
  server({ 'POST /api/user/fx-quotes': () => jsonResponse(422, { error: 'No exchange rate is set for USD to EUR', code: 'no_rate' }) });
  renderScreen(ExchangeScreen);
  await waitFor(() => expect(optionLabels('exchange-from')).toHaveLength(3));
  chooseOption('exchange-from', '100200300 · Checking ($1,250.50)');
  chooseOption('exchange-to', '100200399 · Euro Savings (EUR)');
  fireEvent.changeText(screen.getByTestId('exchange-amount'), '10');
  fireEvent.press(screen.getByTestId('exchange-quote'));
  expect(await screen.findByText('No exchange rate is set for USD to EUR')).toBeTruthy();
  expect(screen.queryByTestId('exchange-quote-card')).toBeNull();
});

describe('quoteDeadline', () => {
  const sent = Date.parse('2026-06-01T10:00:00Z');
  it("is the server's expiry on a clock that agrees", () => {
    expect(quoteDeadline('2026-06-01T10:00:30Z', sent, sent + 200)).toBe(sent + 30_000);
  });
  it('never more than 30 s after the request left (a device clock behind the server)', () => {
    expect(quoteDeadline('2026-06-01T10:00:50Z', sent, sent + 200)).toBe(sent + 30_000);
  });
  it('earlier when the server says so (a device clock ahead)', () => {
    expect(quoteDeadline('2026-06-01T10:00:20Z', sent, sent + 200)).toBe(sent + 20_000);
  });
  it('30 s from sending when the expiry already passed on arrival', () => {
    expect(quoteDeadline('2026-06-01T09:59:00Z', sent, sent + 200)).toBe(sent + 30_000);
  });
});
