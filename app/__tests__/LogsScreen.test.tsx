import { act, fireEvent, roleOf, screen, waitFor, within } from './rtl';

import LogsScreen from '../screens/LogsScreen';
import type { AuditLog } from '../services/api/types';
import { lightPalette } from '../theme';
import { adminUser, pending, renderElement, signedInAs } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

const log = (id: number, extra: Partial<AuditLog> = {}): AuditLog => ({
  id,
  FullName: `User ${id}`,
  AccountNumber: `10020030${id}`,
  ActionType: 'TRANSFER',
  TableName: 'transactions',
  Description: `Transfer number ${id}`,
  ActionTimestamp: '2026-03-04T09:05:00Z',
  ...extra,
});

function server(auditLogs: (url: string) => Response | Promise<Response>) {
  return mockFetch({
    'GET /api/user/notifications': () => jsonResponse(200, []),
    'GET /api/admin/audit-logs': (_body, url) => auditLogs(url),
  });
}

signedInAs(adminUser, 'tok-admin');


it('shows User, Account, Action, Table, Description and Timestamp', async () => {
  server(() => jsonResponse(200, { audit_logs: [log(1, { AccountNumber: '' })], next_cursor: null }));
  renderElement(<LogsScreen />);
  expect(screen.getByText('System Logs')).toBeTruthy();
  expect(await screen.findByText('User 1')).toBeTruthy();
  for (const title of ['User', 'Account', 'Action', 'Table', 'Description', 'Timestamp']) expect(screen.getByText(title)).toBeTruthy();
  expect(screen.getByText('TRANSFER')).toBeTruthy();
  expect(screen.getByText('transactions')).toBeTruthy();
  expect(screen.getByText('Transfer number 1')).toBeTruthy();
  expect(screen.getByText('Mar 4, 2026, 09:05 AM')).toBeTruthy();
  expect(screen.getByText('—')).toBeTruthy();
  // No more pages: no "load more".
  expect(screen.queryByTestId('logs-load-more')).toBeNull();
});

it('a loading state, then the empty text', async () => {
  let answer: (r: Response) => void = () => undefined;
  server(() => new Promise<Response>((res) => (answer = res)));
  renderElement(<LogsScreen />);
  expect(await screen.findByText('Loading logs...')).toBeTruthy();
  await act(async () => answer(jsonResponse(200, { audit_logs: [], next_cursor: null })));
  expect(await screen.findByText('No logs available')).toBeTruthy();
});

it("a failed fetch: 'Failed to fetch logs' inline and as a toast", async () => {
  server(() => jsonResponse(500, { error: 'Internal error' }));
  renderElement(<LogsScreen />);
  expect(await screen.findByTestId('toast-error')).toHaveTextContent('Failed to fetch logs');
  expect(within(screen.getByTestId('logs-table')).getByText('Failed to fetch logs')).toBeTruthy();
});

it("audit_logs that is not an array: 'Unexpected response format from server'", async () => {
  server(() => jsonResponse(200, { audit_logs: { not: 'an array' }, next_cursor: null }));
  renderElement(<LogsScreen />);
  expect(await screen.findByTestId('toast-error')).toHaveTextContent('Unexpected response format from server');
  expect(within(screen.getByTestId('logs-table')).getByText('Unexpected response format from server')).toBeTruthy();
  expect(screen.queryByText('Failed to fetch logs')).toBeNull();
});

it('a bare array instead of {audit_logs} is also an unexpected format', async () => {
  server(() => jsonResponse(200, [log(1)]));
  renderElement(<LogsScreen />);
  expect(await screen.findByTestId('toast-error')).toHaveTextContent('Unexpected response format from server');
  expect(screen.queryByText('User 1')).toBeNull();
});

it('"Load more" asks for the next page with limit and before=next_cursor and appends it', async () => {
  const { calls } = server((url) =>
    url.includes('before=cursor-1')
      ? jsonResponse(200, { audit_logs: [log(2)], next_cursor: null })
      : jsonResponse(200, { audit_logs: [log(3)], next_cursor: 'cursor-1' }),
  );
  renderElement(<LogsScreen />);
  expect(await screen.findByText('User 3')).toBeTruthy();
  expect(calls.find((c) => c.path === '/api/admin/audit-logs')?.url).toMatch(/\/api\/admin\/audit-logs\?limit=50$/);
  fireEvent.press(screen.getByTestId('logs-load-more'));
  expect(await screen.findByText('User 2')).toBeTruthy();
  expect(screen.getByText('User 3')).toBeTruthy();
  const pageCall = calls.filter((c) => c.path === '/api/admin/audit-logs')[1];
  expect(pageCall.url).toMatch(/limit=50&before=cursor-1$/);
  await waitFor(() => expect(screen.queryByTestId('logs-load-more')).toBeNull());
});

it('a failed "load more" keeps the rows shown and toasts', async () => {
  server((url) =>
    url.includes('before=') ? jsonResponse(500) : jsonResponse(200, { audit_logs: [log(3)], next_cursor: 'cursor-1' }),
  );
  renderElement(<LogsScreen />);
  expect(await screen.findByText('User 3')).toBeTruthy();
  fireEvent.press(screen.getByTestId('logs-load-more'));
  expect(await screen.findByTestId('toast-error')).toHaveTextContent('Failed to fetch logs');
  expect(screen.getByText('User 3')).toBeTruthy();
  expect(screen.getByTestId('logs-load-more')).toBeTruthy();
});

it('stays in loading while the server does not answer', async () => {
  server(pending);
  renderElement(<LogsScreen />);
  expect(await screen.findByText('Loading logs...')).toBeTruthy();
  expect(screen.queryByText('No logs available')).toBeNull();
});

describe('the audit chain badge', () => {
  const withChain = (verify: () => Response | Promise<Response>) =>
    mockFetch({
      'GET /api/user/notifications': () => jsonResponse(200, []),
      'GET /api/admin/audit-logs': () => jsonResponse(200, { audit_logs: [log(1)], next_cursor: null }),
      'GET /api/admin/audit-logs/verify': verify,
    });

  it("says 'Audit chain verified' in the success colour when the chain verifies", async () => {
    withChain(() => jsonResponse(200, { ok: true, verified_through: 1234, first_bad_id: null }));
    renderElement(<LogsScreen />);
    const badge = await screen.findByText('Audit chain verified');
    expect(screen.getByLabelText('Audit chain verified through entry 1234')).toBeTruthy();
    expect(roleOf(screen.getByTestId('audit-chain-badge'))).toBe('status');
    expect(badge).toHaveStyle({ color: lightPalette.success });
  });

  it("says 'Audit chain broken at entry N' in the danger colour when it does not", async () => {
    withChain(() => jsonResponse(200, { ok: false, verified_through: 16, first_bad_id: 17 }));
    renderElement(<LogsScreen />);
    const badge = await screen.findByText('Audit chain broken at entry 17');
    expect(screen.getByLabelText('Audit chain broken at entry 17')).toBeTruthy();
    expect(badge).toHaveStyle({ color: lightPalette.danger });
  });

  it('is neutral while checking, and gone when the check fails; the log still shows', async () => {
    let answer: (r: Response) => void = () => undefined;
    withChain(() => new Promise<Response>((res) => (answer = res)));
    renderElement(<LogsScreen />);
    expect(await screen.findByText('Checking audit chain…')).toHaveStyle({ color: lightPalette.neutral });
    await act(async () => answer(jsonResponse(500, { error: 'Internal error' })));
    await waitFor(() => expect(screen.queryByTestId('audit-chain-badge')).toBeNull());
    expect(screen.getByText('User 1')).toBeTruthy();
    expect(screen.queryByText(/Audit chain (verified|broken)/)).toBeNull();
  });

  it('an answer without a boolean ok claims nothing', async () => {
    withChain(() => jsonResponse(200, { verified_through: 3 }));
    renderElement(<LogsScreen />);
    expect(await screen.findByText('User 1')).toBeTruthy();
    await waitFor(() => expect(screen.queryByTestId('audit-chain-badge')).toBeNull());
  });
});
