import { chooseOption, fireEvent, pressEscape, screen, waitFor, within } from './rtl';

import MoneyRequestScreen from '../screens/MoneyRequestScreen';
import { accounts, customer, renderScreen, requests, signedInAs } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

function server(extra: Record<string, (body: unknown) => Response> = {}) {
  return mockFetch({
    'GET /api/user/accounts': () => jsonResponse(200, accounts),
    'GET /api/user/transactions/money-request': () => jsonResponse(200, requests),
    ...extra,
  });
}

signedInAs(customer);


const listCalls = (calls: Array<{ path: string }>) => calls.filter((c) => c.path === '/api/user/transactions/money-request').length;

describe('Money Requests', () => {
  it("shows 'Loading requests...', then the history with 2-decimal amounts and status badges", async () => {
    server();
    renderScreen(MoneyRequestScreen);
    expect(screen.getByText('Money Requests')).toBeTruthy();
    expect(screen.getByText('Loading requests...')).toBeTruthy();
    const table = screen.getByTestId('request-history');
    await waitFor(() => expect(within(table).getByText('$20.00')).toBeTruthy());
    expect(within(table).getByText('$7.50')).toBeTruthy();
    expect(within(table).getByText('2026-05-01')).toBeTruthy();
    expect(screen.getByTestId('request-status-33')).toHaveTextContent('Accepted');
    for (const t of ['Date', 'Amount', 'From Account', 'To Account', 'Status', 'Actions']) expect(within(table).getByText(t)).toBeTruthy();
  });

  it("titles the table 'Request History' (a heading)", async () => {
    server();
    renderScreen(MoneyRequestScreen);
    expect(screen.getByRole('heading', { name: 'Request History' })).toBeTruthy();
  });

  it('the menu closes on an outside press and on Escape / the back button', async () => {
    server();
    renderScreen(MoneyRequestScreen);
    fireEvent.press(await screen.findByTestId('request-menu-31'));
    expect(screen.getByTestId('request-menu-31')).toBeExpanded();
    fireEvent.press(screen.getByTestId('request-menu-31-popover-backdrop', { includeHiddenElements: true } as never));
    expect(screen.queryByTestId('request-accept-31')).toBeNull();
    expect(screen.getByTestId('request-menu-31')).toBeCollapsed();

    fireEvent.press(screen.getByTestId('request-menu-31'));
    expect(screen.getByTestId('request-decline-31')).toBeTruthy();
    // Escape on the web, the back button on Android.
    pressEscape();
    expect(screen.queryByTestId('request-decline-31')).toBeNull();
  });

  it('the Accept/Decline menu exists only on incoming PENDING rows', async () => {
    server();
    renderScreen(MoneyRequestScreen);
    expect(await screen.findByTestId('request-menu-31')).toBeTruthy();
    expect(screen.queryByTestId('request-menu-32')).toBeNull();
    expect(screen.queryByTestId('request-menu-33')).toBeNull();
    expect(screen.queryByTestId('request-accept-31')).toBeNull();
    fireEvent.press(screen.getByTestId('request-menu-31'));
    expect(screen.getByTestId('request-accept-31')).toBeTruthy();
    expect(screen.getByTestId('request-decline-31')).toBeTruthy();
  });

  it('accept and decline toast and reload the list; failures toast', async () => {
    let ok = true;
    const { calls } = server({
      'PUT /api/user/accept-money-request/31': () => (ok ? jsonResponse(200, { data: requests[0] }) : jsonResponse(422, { error: 'Insufficient funds' })),
      'PUT /api/user/decline-money-request/31': () => (ok ? jsonResponse(200, { data: requests[0] }) : jsonResponse(409, { error: 'x' })),
    });
    renderScreen(MoneyRequestScreen);
    fireEvent.press(await screen.findByTestId('request-menu-31'));
    const before = listCalls(calls);
    fireEvent.press(screen.getByTestId('request-accept-31'));
    expect(await screen.findByText('Money request accepted!')).toBeTruthy();
    await waitFor(() => expect(listCalls(calls)).toBe(before + 1));
    await waitFor(() => expect(screen.getByTestId('request-menu-31')).not.toBeDisabled());
    fireEvent.press(screen.getByTestId('request-menu-31'));
    fireEvent.press(screen.getByTestId('request-decline-31'));
    expect(await screen.findByText('Money request rejected!')).toBeTruthy();
    ok = false;
    await waitFor(() => expect(screen.getByTestId('request-menu-31')).not.toBeDisabled());
    fireEvent.press(screen.getByTestId('request-menu-31'));
    fireEvent.press(screen.getByTestId('request-accept-31'));
    expect(await screen.findByText('Failed to accept request')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('request-menu-31')).not.toBeDisabled());
    fireEvent.press(screen.getByTestId('request-menu-31'));
    fireEvent.press(screen.getByTestId('request-decline-31'));
    expect(await screen.findByText('Failed to reject request')).toBeTruthy();
  });

  it('validates: amount, from and to account required', async () => {
    const { calls } = server();
    renderScreen(MoneyRequestScreen);
    fireEvent.press(screen.getByTestId('request-new'));
    expect(screen.getByTestId('request-modal')).toBeTruthy();
    fireEvent.changeText(screen.getByTestId('request-amount'), '5');
    fireEvent.press(screen.getByTestId('request-submit'));
    expect(await screen.findByText('Amount, From Account, and To Account are required.')).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('creates a request from the own account; success toasts, closes and reloads; failure toasts', async () => {
    let ok = true;
    const { calls } = server({
      'POST /api/user/money-request': () => (ok ? jsonResponse(201, { message: 'ok', data: requests[1] }) : jsonResponse(404, { error: 'Account not found' })),
    });
    renderScreen(MoneyRequestScreen);
    await screen.findByText('$20.00');
    const fill = () => {
      fireEvent.press(screen.getByTestId('request-new'));
      chooseOption('request-from', '100200301');
      fireEvent.changeText(screen.getByTestId('request-to'), '900800700');
      fireEvent.changeText(screen.getByTestId('request-amount'), '7.5');
      fireEvent.changeText(screen.getByTestId('request-description'), 'Cinema');
    };
    fill();
    const before = listCalls(calls);
    fireEvent.press(screen.getByTestId('request-submit'));
    expect(await screen.findByText('Money request created successfully!')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({
      requester_id: '100200301',
      recipient_id: '900800700',
      amount: '7.5',
      description: 'Cinema',
    });
    await waitFor(() => expect(screen.queryByTestId('request-modal')).toBeNull());
    await waitFor(() => expect(listCalls(calls)).toBe(before + 1));
    ok = false;
    fill();
    fireEvent.press(screen.getByTestId('request-submit'));
    expect(await screen.findByText('Failed to create money request')).toBeTruthy();
  });

  it("a list failure gives 'Failed to fetch money requests'", async () => {
    server({ 'GET /api/user/transactions/money-request': () => jsonResponse(500) });
    renderScreen(MoneyRequestScreen);
    expect((await screen.findAllByText('Failed to fetch money requests')).length).toBe(2);
  });

  it("an empty list says 'No money requests available.'", async () => {
    server({ 'GET /api/user/transactions/money-request': () => jsonResponse(200, []) });
    renderScreen(MoneyRequestScreen);
    expect(await screen.findByText('No money requests available.')).toBeTruthy();
  });

  it('the list is a bare array: an object in its place is no requests', async () => {
    server({ 'GET /api/user/transactions/money-request': () => jsonResponse(200, { data: requests }) });
    renderScreen(MoneyRequestScreen);
    expect(await screen.findByText('No money requests available.')).toBeTruthy();
    expect(screen.queryByText('$20.00')).toBeNull();
  });

  it("amounts are written in the account's currency", async () => {
    const euro = { ...accounts[0], id: 13, account_number: '100200399', currency: 'EUR' };
    server({
      'GET /api/user/accounts': () => jsonResponse(200, [...accounts, euro]),
      'GET /api/user/transactions/money-request': () => jsonResponse(200, [...requests, { ...requests[1], ID: 40, Amount: 15, requester_id: '100200399' }]),
    });
    renderScreen(MoneyRequestScreen);
    const table = screen.getByTestId('request-history');
    await waitFor(() => expect(within(table).getByText('€15.00')).toBeTruthy());
    expect(within(table).getByText('$7.50')).toBeTruthy();
  });
});
