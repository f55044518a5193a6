import { focusManager } from '@tanstack/react-query';
import { Text } from 'react-native';

import { act, chooseOption, fireEvent, screen, setWindowSize, waitFor, within } from './rtl';

import { Shell } from '../components/shell/Shell';
import ApprovalsScreen from '../screens/ApprovalsScreen';
import { PENDING_REFETCH_MS } from '../services/api/approvals';
import type { Approval } from '../services/api/types';
import { adminUser, approval, customer, renderScreen, signedInAs } from './screenHarness';
import { jsonResponse, mockFetch, renderWithProviders } from './testUtils';

/** Answers the list by its status query; records the queries. */
function server(list: () => Approval[], extra: Parameters<typeof mockFetch>[0] = {}) {
  const statuses: Array<string | null> = [];
  const mock = mockFetch({
    'GET /api/admin/approvals': (_body, url) => {
      const status = new URLSearchParams(url.split('?')[1] ?? '').get('status');
      statuses.push(status);
      return jsonResponse(200, list().filter((a) => !status || a.status === status));
    },
    ...extra,
  });
  return { ...mock, statuses };
}

afterEach(() => jest.useRealTimers());

describe('the Approvals page', () => {
  signedInAs(adminUser, 'tok-admin');

  it("lists the pending ones: summary, who asked, when, expiry; the maker's own has no Approve or Reject", async () => {
    const { statuses } = server(() => [approval(1), approval(2, { requested_by: adminUser.email, requested_by_id: adminUser.id }), approval(3, { requested_by: null, requested_by_id: null })]);
    renderScreen(ApprovalsScreen);
    expect(await screen.findByText('Deposit $10,000.00 into 100200300')).toBeTruthy();
    expect(statuses[0]).toBe('pending');
    const table = screen.getByTestId('approvals-table');
    expect(within(table).getByText('other@meridian.test')).toBeTruthy();
    expect(within(table).getByText('Command line')).toBeTruthy();
    expect(within(table).getAllByText('2026-06-01 10:00').length).toBe(3);
    expect(within(table).getAllByText('2026-06-02 10:00').length).toBe(3);
    expect(screen.getByTestId('approval-approve-1')).toBeTruthy();
    expect(screen.getByTestId('approval-reject-1')).toBeTruthy();
    expect(screen.queryByTestId('approval-approve-2')).toBeNull();
    expect(screen.queryByTestId('approval-reject-2')).toBeNull();
    expect(screen.getByTestId('approval-mine-2')).toHaveTextContent('You asked for this; another administrator must decide it.');
    // The command line's request can be decided by any administrator.
    expect(screen.getByTestId('approval-approve-3')).toBeTruthy();
  });

  it('Approve runs it: the call, a toast, the list fetched again', async () => {
    let rows = [approval(1)];
    const { calls } = server(() => rows, {
      'POST /api/admin/approvals/1/approve': () => {
        rows = [approval(1, { status: 'approved', decided_by: adminUser.email, decided_by_id: adminUser.id })];
        return jsonResponse(200, { approval: rows[0], result: { id: 50 } });
      },
    });
    renderScreen(ApprovalsScreen);
    fireEvent.press(await screen.findByTestId('approval-approve-1'));
    expect(await screen.findByText('Approved successfully')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')?.body).toBeUndefined();
    await waitFor(() => expect(screen.getByText('Nothing waits for an approval.')).toBeTruthy());
  });

  it("403 same_admin: the server's sentence", async () => {
    server(() => [approval(1)], {
      'POST /api/admin/approvals/1/approve': () => jsonResponse(403, { error: 'You asked for this; another administrator must decide it', code: 'same_admin' }),
    });
    renderScreen(ApprovalsScreen);
    fireEvent.press(await screen.findByTestId('approval-approve-1'));
    expect(await screen.findByText('You asked for this; another administrator must decide it')).toBeTruthy();
  });

  it('Reject requires a reason, then sends it', async () => {
    const { calls } = server(() => [approval(1)], {
      'POST /api/admin/approvals/1/reject': () => jsonResponse(200, { approval: approval(1, { status: 'rejected', reason: 'Not verified' }) }),
    });
    renderScreen(ApprovalsScreen);
    fireEvent.press(await screen.findByTestId('approval-reject-1'));
    fireEvent.press(await screen.findByTestId('reject-approval-submit'));
    expect(await screen.findByText('A reason is required.')).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    fireEvent.changeText(screen.getByTestId('reject-approval-reason'), 'Not verified');
    fireEvent.press(screen.getByTestId('reject-approval-submit'));
    expect(await screen.findByText('Rejected successfully')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')).toMatchObject({ path: '/api/admin/approvals/1/reject', body: { reason: 'Not verified' } });
  });

  it('the status filter: decided ones show who decided and why; All asks without a status', async () => {
    const { statuses } = server(() => [approval(1), approval(4, { status: 'rejected', decided_by: 'boss@meridian.test', decided_by_id: 8, reason: 'Not verified' })]);
    renderScreen(ApprovalsScreen);
    await screen.findByTestId('approval-approve-1');
    chooseOption('approvals-filter', 'Rejected');
    expect(await screen.findByText('by boss@meridian.test')).toBeTruthy();
    expect(screen.getByText('Not verified')).toBeTruthy();
    expect(screen.getByTestId('approval-status-4')).toHaveTextContent('Rejected');
    expect(screen.queryByTestId('approval-reject-4')).toBeNull();
    chooseOption('approvals-filter', 'All');
    await waitFor(() => expect(statuses).toContain(null));
    expect(statuses).toContain('rejected');
  });
});

describe('the pending count in the sidebar', () => {
  // Wide: the sidebar is open beside the page.
  const renderShell = (role: 'User' | 'Admin') => {
    setWindowSize(1280);
    return renderWithProviders(
      <Shell user={{ ...(role === 'Admin' ? adminUser : customer) }} activeRoute="Dashboard" onNavigate={jest.fn()} onLogout={jest.fn()}>
        <Text>Page</Text>
      </Shell>,
    );
  };

  describe('an admin', () => {
    signedInAs(adminUser, 'tok-admin');

    it('shows the count, fetched again every 20 s and when the app comes back to the front', async () => {
      jest.useFakeTimers();
      let rows = [approval(1), approval(2)];
      const { statuses } = server(() => rows);
      renderShell('Admin');
      expect(await screen.findByTestId('nav-approvals-count')).toHaveTextContent('2');
      expect(screen.getByLabelText('Approvals, 2 pending')).toBeTruthy();
      rows = [approval(1), approval(2), approval(3)];
      await act(async () => {
        jest.advanceTimersByTime(PENDING_REFETCH_MS);
      });
      await waitFor(() => expect(screen.getByTestId('nav-approvals-count')).toHaveTextContent('3'));
      const before = statuses.length;
      rows = [];
      act(() => {
        focusManager.setFocused(false);
        focusManager.setFocused(true);
      });
      await waitFor(() => expect(statuses.length).toBeGreaterThan(before));
      await waitFor(() => expect(screen.queryByTestId('nav-approvals-count')).toBeNull());
      expect(statuses.every((s) => s === 'pending')).toBe(true);
      act(() => focusManager.setFocused(undefined));
    });
  });

  describe('a customer', () => {
    signedInAs(customer);

    it('asks for none', async () => {
      const { statuses } = server(() => [approval(1)]);
      renderShell('User');
      expect(await screen.findByTestId('nav-exchange')).toBeTruthy();
      expect(screen.queryByTestId('nav-approvals')).toBeNull();
      expect(statuses).toEqual([]);
    });
  });
});
