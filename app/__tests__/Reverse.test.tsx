import { fireEvent, screen, waitFor, within } from './rtl';

import TransactionHistoryScreen from '../screens/TransactionHistoryScreen';
import type { Transaction } from '../services/api/types';
import { accounts, adminUser, approval, customer, renderScreen, signedInAs, transactions } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

const rows: Transaction[] = [
  { ...transactions[0], id: 1, kind: 'transfer', reverses: null, reversed_by: null },
  { ...transactions[1], id: 2, kind: 'deposit', reverses: null, reversed_by: 7 },
  { ...transactions[0], id: 7, kind: 'reversal', reverses: 2, reversed_by: null, description: 'Reversal of 2: wrong account' },
];

function server(reverse?: Parameters<typeof mockFetch>[0][string]) {
  return mockFetch({
    'GET /api/admin/accounts': () => jsonResponse(200, accounts),
    'GET /api/admin/transactions/history': () => jsonResponse(200, { data: rows, next_cursor: null }),
    ...(reverse ? { 'POST /api/admin/transactions/1/reverse': reverse } : {}),
  });
}

const posts = (calls: ReturnType<typeof mockFetch>['calls']) => calls.filter((c) => c.method === 'POST');

async function openDialog() {
  renderScreen(TransactionHistoryScreen);
  fireEvent.press(await screen.findByTestId('history-reverse-1'));
  await screen.findByTestId('reverse-modal');
}

describe("an admin's history", () => {
  signedInAs(adminUser, 'tok-admin');

  it('offers Reverse on a plain row; a reversed row and a reversal show a badge instead', async () => {
    server();
    renderScreen(TransactionHistoryScreen);
    expect(await screen.findByTestId('history-reverse-1')).toBeTruthy();
    expect(screen.queryByTestId('history-reverse-2')).toBeNull();
    expect(screen.getByTestId('history-reversed-2')).toHaveTextContent('Reversed');
    expect(screen.queryByTestId('history-reverse-7')).toBeNull();
    expect(screen.getByTestId('history-reversal-7')).toHaveTextContent('Reversal');
  });

  it('the dialog requires a reason before anything is sent', async () => {
    const { calls } = server(() => jsonResponse(201, { message: 'Transaction reversed', reverses: 1, transaction: rows[0] }));
    await openDialog();
    expect(within(screen.getByTestId('reverse-modal')).getByText(/Reverse \$12\.50 from 100200300 to 900800700 of 2026-05-06\?/)).toBeTruthy();
    fireEvent.press(screen.getByTestId('reverse-submit'));
    expect(await screen.findByText('A reason is required.')).toBeTruthy();
    fireEvent.changeText(screen.getByTestId('reverse-reason'), '   ');
    fireEvent.press(screen.getByTestId('reverse-submit'));
    expect(await screen.findByText('A reason is required.')).toBeTruthy();
    expect(posts(calls)).toHaveLength(0);
  });

  it('201: reversed, said so, the history fetched again', async () => {
    const { calls } = server(() => jsonResponse(201, { message: 'Transaction reversed', reverses: 1, transaction: rows[0] }));
    await openDialog();
    fireEvent.changeText(screen.getByTestId('reverse-reason'), ' Sent to the wrong account ');
    fireEvent.press(screen.getByTestId('reverse-submit'));
    expect(await screen.findByText('Transaction reversed')).toBeTruthy();
    expect(posts(calls)[0]).toMatchObject({ path: '/api/admin/transactions/1/reverse', body: { reason: 'Sent to the wrong account' } });
    await waitFor(() => expect(screen.queryByTestId('reverse-modal')).toBeNull());
    await waitFor(() => expect(calls.filter((c) => c.path === '/api/admin/transactions/history').length).toBeGreaterThanOrEqual(2));
  });

  it('202: it waits for a second administrator', async () => {
    server(() =>
      jsonResponse(202, { approval: approval(5, { kind: 'reversal', summary: 'Reverse transaction 1 ($12.50)', requested_by: 'admin@meridian.test', requested_by_id: 1 }) }),
    );
    await openDialog();
    fireEvent.changeText(screen.getByTestId('reverse-reason'), 'Fraud');
    fireEvent.press(screen.getByTestId('reverse-submit'));
    expect(await screen.findByText("Waiting for a second administrator's approval")).toBeTruthy();
    expect(screen.queryByText('Transaction reversed')).toBeNull();
  });

  for (const [status, body] of [
    [409, { error: 'This transaction was already reversed', code: 'already_reversed' }],
    [422, { error: 'Insufficient funds', code: 'insufficient_funds' }],
  ] as const) {
    it(`${status}: the server's sentence stays in the dialog`, async () => {
      server(() => jsonResponse(status, body));
      await openDialog();
      fireEvent.changeText(screen.getByTestId('reverse-reason'), 'Wrong amount');
      fireEvent.press(screen.getByTestId('reverse-submit'));
      expect(await screen.findByTestId('reverse-error')).toHaveTextContent(body.error);
      expect(screen.getByTestId('reverse-modal')).toBeTruthy();
    });
  }
});

describe("a customer's history", () => {
  signedInAs(customer);

  it('has no Reverse', async () => {
    mockFetch({
      'GET /api/user/accounts': () => jsonResponse(200, accounts),
      'GET /api/user/transactions/history': () => jsonResponse(200, { data: rows, next_cursor: null }),
    });
    renderScreen(TransactionHistoryScreen);
    expect(await screen.findByText('Reversal of 2: wrong account')).toBeTruthy();
    expect(screen.queryByTestId('history-reverse-1')).toBeNull();
    expect(screen.queryByText('Correction')).toBeNull();
  });
});
