import { chooseOption, fireEvent, screen, waitFor, within } from './rtl';

import TransferFundsScreen from '../screens/TransferFundsScreen';
import type { Payee, ScheduledRun, ScheduledTransfer } from '../services/api/types';
import { accounts, customer, renderScreen, signedInAs, transactions } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

const series: ScheduledTransfer[] = [
  {
    id: 41,
    account_id: '100200300',
    to_account_id: '900800700',
    amount: 25,
    currency: 'USD',
    description: 'Rent',
    frequency: 'monthly',
    next_run_at: '2030-02-01T09:30:00Z',
    until: '2030-12-31T23:59:59Z',
    status: 'active',
    created_at: '2029-12-01T00:00:00Z',
  },
  {
    id: 42,
    account_id: '100200300',
    to_account_id: '555444333',
    amount: 3.5,
    currency: 'USD',
    description: 'Coffee',
    frequency: 'once',
    next_run_at: null,
    until: null,
    status: 'completed',
    created_at: '2029-12-02T00:00:00Z',
  },
];

const runs: ScheduledRun[] = [
  { run_at: '2030-01-01T09:30:00Z', status: 'failed', reason: 'Insufficient funds', transaction_id: null },
  { run_at: '2029-12-01T09:30:00Z', status: 'succeeded', reason: null, transaction_id: 77 },
];

const payees: Payee[] = [{ id: 5, nickname: 'Landlord', account_number: '900800700', holder_name: 'Bob Brown', created_at: '2026-05-01T10:00:00Z' }];

function server(extra: Parameters<typeof mockFetch>[0] = {}) {
  return mockFetch({
    'GET /api/user/accounts': () => jsonResponse(200, accounts),
    'GET /api/user/transactions/history': () => jsonResponse(200, { data: transactions, next_cursor: null }),
    'GET /api/user/account-details': () => jsonResponse(200, { full_name: 'Bob Brown', account_number: '900800700' }),
    'GET /api/user/payees': () => jsonResponse(200, payees),
    'GET /api/user/scheduled-transfers': () => jsonResponse(200, series),
    'GET /api/user/scheduled-transfers/41/runs': () => jsonResponse(200, runs),
    ...extra,
  });
}

signedInAs(customer);

async function openTab() {
  renderScreen(TransferFundsScreen);
  fireEvent.press(screen.getByTestId('transfer-tab-scheduled'));
  return screen.findByTestId('scheduled-table');
}

async function openForm() {
  await openTab();
  fireEvent.press(screen.getByTestId('schedule-open'));
  await screen.findByTestId('schedule-modal');
}

function fill({ firstRun = '2030-01-02 09:30', frequency = 'Weekly', until = '' } = {}) {
  chooseOption('schedule-from', '100200300 ($1,250.50)');
  fireEvent.changeText(screen.getByTestId('schedule-to'), '900800700');
  fireEvent.changeText(screen.getByTestId('schedule-amount'), '40');
  fireEvent.changeText(screen.getByTestId('schedule-description'), 'Rent share');
  fireEvent.changeText(screen.getByTestId('schedule-first-run'), firstRun);
  chooseOption('schedule-frequency', frequency);
  if (until) fireEvent.changeText(screen.getByTestId('schedule-until'), until);
}

describe('the Scheduled tab', () => {
  it('lists the series: next run, frequency, recipient, amount, end and status; Cancel only for active ones', async () => {
    server();
    const table = await openTab();
    await waitFor(() => expect(within(table).getByText('2030-02-01 09:30')).toBeTruthy());
    expect(within(table).getByText('Monthly')).toBeTruthy();
    expect(within(table).getByText('$25.00')).toBeTruthy();
    expect(within(table).getByText('2030-12-31')).toBeTruthy();
    expect(screen.getByTestId('schedule-status-41')).toHaveTextContent('Active');
    expect(screen.getByTestId('schedule-status-42')).toHaveTextContent('Completed');
    expect(screen.getByTestId('schedule-cancel-41')).toBeTruthy();
    expect(screen.queryByTestId('schedule-cancel-42')).toBeNull();
  });

  it('an empty list says so', async () => {
    server({ 'GET /api/user/scheduled-transfers': () => jsonResponse(200, []) });
    await openTab();
    expect(await screen.findByText('No scheduled transfers.')).toBeTruthy();
  });

  it("a failed list toasts the server's sentence", async () => {
    server({ 'GET /api/user/scheduled-transfers': () => jsonResponse(503, { error: 'The service is busy', code: 'busy' }) });
    await openTab();
    expect(await screen.findByText('The service is busy')).toBeTruthy();
    expect(screen.getByText('Failed to load scheduled transfers')).toBeTruthy();
  });

  it('schedules a weekly transfer: local date and time sent as RFC 3339, the end date through its last day', async () => {
    const { calls } = server({ 'POST /api/user/scheduled-transfers': (body) => jsonResponse(201, { ...series[0], ...(body as object), id: 43 }) });
    await openForm();
    fill({ until: '2030-03-31' });
    fireEvent.press(screen.getByTestId('schedule-submit'));
    expect(await screen.findByText('Transfer scheduled')).toBeTruthy();
    // Jest runs in UTC: local time is UTC here.
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      account_id: '100200300',
      to_account_id: '900800700',
      amount: '40',
      description: 'Rent share',
      frequency: 'weekly',
      run_at: '2030-01-02T09:30:00Z',
      until: '2030-03-31T23:59:59Z',
    });
    await waitFor(() => expect(screen.queryByTestId('schedule-modal')).toBeNull());
    // The list is fetched again.
    await waitFor(() => expect(calls.filter((c) => c.method === 'GET' && c.path === '/api/user/scheduled-transfers').length).toBe(2));
  });

  it('a saved payee fills the recipient with its name', async () => {
    const { calls } = server({ 'POST /api/user/scheduled-transfers': () => jsonResponse(201, series[0]) });
    await openForm();
    await waitFor(() => expect(screen.getByTestId('schedule-payee')).toBeTruthy());
    chooseOption('schedule-payee', 'Landlord (900800700)');
    expect(screen.getByTestId('schedule-recipient-name')).toHaveTextContent('Bob Brown');
    chooseOption('schedule-from', '100200300 ($1,250.50)');
    fireEvent.changeText(screen.getByTestId('schedule-amount'), '5');
    fireEvent.changeText(screen.getByTestId('schedule-first-run'), '2030-05-06 07:08');
    fireEvent.press(screen.getByTestId('schedule-submit'));
    expect(await screen.findByText('Transfer scheduled')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ to_account_id: '900800700', frequency: 'once', run_at: '2030-05-06T07:08:00Z' });
    expect((calls.find((c) => c.method === 'POST')?.body as object)).not.toHaveProperty('until');
    expect(calls.some((c) => c.path === '/api/user/account-details')).toBe(false);
  });

  for (const [what, values, message] of [
    ['a badly written first run', { firstRun: '02/01/2030 9:30' }, 'First run: enter a date and time as YYYY-MM-DD HH:MM.'],
    ['a first run in the past', { firstRun: '2020-01-01 10:00' }, 'First run cannot be in the past.'],
    ['a bad end date', { until: '2030-02-30' }, 'End date: enter a date as YYYY-MM-DD (or YYYY-MM-DD HH:MM).'],
    ['an end before the first run', { until: '2029-12-31' }, 'End date must be after the first run.'],
  ] as const) {
    it(`refuses ${what} in the app`, async () => {
      const { calls } = server();
      await openForm();
      fill(values);
      fireEvent.press(screen.getByTestId('schedule-submit'));
      expect(await screen.findByText(message)).toBeTruthy();
      expect(calls.some((c) => c.method === 'POST')).toBe(false);
    });
  }

  it('requires the fields', async () => {
    server();
    await openForm();
    fireEvent.changeText(screen.getByTestId('schedule-first-run'), '');
    fireEvent.press(screen.getByTestId('schedule-submit'));
    expect(await screen.findByText('Amount, From Account, Recipient and First run are required.')).toBeTruthy();
  });

  it("a refusal by the server shows its sentence and keeps the form", async () => {
    server({ 'POST /api/user/scheduled-transfers': () => jsonResponse(422, { error: 'Accounts use different currencies', code: 'currency_mismatch' }) });
    await openForm();
    fill();
    fireEvent.press(screen.getByTestId('schedule-submit'));
    expect(await screen.findByText('Accounts use different currencies')).toBeTruthy();
    expect(screen.getByTestId('schedule-modal')).toBeTruthy();
  });

  it('Cancel asks first, then DELETEs the series', async () => {
    let list = series;
    const { calls } = server({
      'GET /api/user/scheduled-transfers': () => jsonResponse(200, list),
      'DELETE /api/user/scheduled-transfers/41': () => {
        list = [{ ...series[0], status: 'cancelled' }, series[1]];
        return jsonResponse(204);
      },
    });
    await openTab();
    fireEvent.press(await screen.findByTestId('schedule-cancel-41'));
    expect(await screen.findByText('Cancel the monthly transfer of $25.00 to 900800700? Past runs stay in your history.')).toBeTruthy();
    fireEvent.press(screen.getByTestId('schedule-cancel-dialog-cancel'));
    await waitFor(() => expect(screen.queryByTestId('schedule-cancel-dialog')).toBeNull());
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);

    fireEvent.press(screen.getByTestId('schedule-cancel-41'));
    fireEvent.press(await screen.findByTestId('schedule-cancel-dialog-confirm'));
    expect(await screen.findByText('Scheduled transfer cancelled')).toBeTruthy();
    expect(calls.find((c) => c.method === 'DELETE')?.path).toBe('/api/user/scheduled-transfers/41');
    await waitFor(() => expect(screen.getByTestId('schedule-status-41')).toHaveTextContent('Cancelled'));
    expect(screen.queryByTestId('schedule-cancel-41')).toBeNull();
  });

  it('a refused cancel shows the server sentence', async () => {
    server({ 'DELETE /api/user/scheduled-transfers/41': () => jsonResponse(409, { error: 'This scheduled transfer is already completed', code: 'conflict' }) });
    await openTab();
    fireEvent.press(await screen.findByTestId('schedule-cancel-41'));
    fireEvent.press(await screen.findByTestId('schedule-cancel-dialog-confirm'));
    expect(await screen.findByText('This scheduled transfer is already completed')).toBeTruthy();
  });

  it('Runs shows the past runs of a series: time, succeeded/failed and the reason', async () => {
    server();
    await openTab();
    fireEvent.press(await screen.findByTestId('schedule-runs-41'));
    const table = await screen.findByTestId('schedule-runs-table');
    await waitFor(() => expect(within(table).getByText('Insufficient funds')).toBeTruthy());
    expect(within(table).getByText('2030-01-01 09:30')).toBeTruthy();
    expect(within(table).getByText('Failed')).toBeTruthy();
    expect(within(table).getByText('Succeeded')).toBeTruthy();
  });

  it('a series without runs says so', async () => {
    server({ 'GET /api/user/scheduled-transfers/42/runs': () => jsonResponse(200, []) });
    await openTab();
    fireEvent.press(await screen.findByTestId('schedule-runs-42'));
    expect(await screen.findByText('No runs yet.')).toBeTruthy();
  });
});
