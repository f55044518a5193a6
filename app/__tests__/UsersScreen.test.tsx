import { fireEvent, screen, waitFor, within } from './rtl';

import UsersScreen, { filterUsers } from '../screens/UsersScreen';
import type { AdminUserRow } from '../services/api/types';
import { adminUser, pending, renderElement, signedInAs } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

const rows: AdminUserRow[] = [
  { id: 1, name: 'Ada Admin', email: 'admin@meridian.test', phone: '+1 555 0001', role: 'Admin', status: true, created: '2026-01-02T10:00:00Z' },
  { id: 2, name: 'Alice Smith', email: 'alice@meridian.test', phone: '+1 555 0102', role: 'User', status: true, created: '2026-01-03T10:00:00Z' },
  { id: 3, name: 'Bob Stone', email: 'bob@meridian.test', phone: '+1 555 0203', role: 'User', status: false, created: '2026-01-04T10:00:00Z' },
];

function server(extra: Parameters<typeof mockFetch>[0] = {}) {
  return mockFetch({
    'GET /api/user/notifications': () => jsonResponse(200, []),
    'GET /api/admin/users': () => jsonResponse(200, rows),
    ...extra,
  });
}

signedInAs(adminUser, 'tok-admin');


it('lists the users with ID, Name, Phone, Role, Status, Created and an action', async () => {
  server();
  renderElement(<UsersScreen />);
  expect(screen.getByText('User Management')).toBeTruthy();
  expect(await screen.findByText('Alice Smith')).toBeTruthy();
  for (const title of ['ID', 'Name', 'Phone', 'Role', 'Status', 'Created', 'Action']) expect(screen.getByText(title)).toBeTruthy();
  expect(screen.getByTestId('user-status-2')).toHaveTextContent('Active');
  expect(screen.getByTestId('user-status-3')).toHaveTextContent('Inactive');
  expect(screen.getByTestId('user-toggle-2')).toHaveTextContent('Deactivate');
  expect(screen.getByTestId('user-toggle-3')).toHaveTextContent('Activate');
  expect(screen.getByText('2026-01-03')).toBeTruthy();
});

it('shows a loading state while the list is on its way', async () => {
  server({ 'GET /api/admin/users': pending });
  renderElement(<UsersScreen />);
  expect(await screen.findByText('Loading users...')).toBeTruthy();
  expect(screen.queryByText('Alice Smith')).toBeNull();
});

it('shows an empty state', async () => {
  server({ 'GET /api/admin/users': () => jsonResponse(200, []) });
  renderElement(<UsersScreen />);
  expect(await screen.findByText('No users found')).toBeTruthy();
});

it("a failed fetch: 'Failed to fetch users', with the server's message when present", async () => {
  server({ 'GET /api/admin/users': () => jsonResponse(500, {}) });
  renderElement(<UsersScreen />);
  expect(await screen.findByTestId('toast-error')).toHaveTextContent('Failed to fetch users');
  expect(within(screen.getByTestId('users-table')).getByText('Failed to fetch users')).toBeTruthy();
});

it("a failed fetch with a server message shows that message too", async () => {
  server({ 'GET /api/admin/users': () => jsonResponse(403, { error: 'Admin access required', code: 'forbidden' }) });
  renderElement(<UsersScreen />);
  expect(await screen.findByTestId('toast-error')).toHaveTextContent('Failed to fetch users: Admin access required');
});

it('the search box filters by name or phone', async () => {
  server();
  renderElement(<UsersScreen />);
  await screen.findByText('Alice Smith');
  fireEvent.changeText(screen.getByTestId('users-search'), 'bob');
  expect(screen.queryByText('Alice Smith')).toBeNull();
  expect(screen.getByText('Bob Stone')).toBeTruthy();
  fireEvent.changeText(screen.getByTestId('users-search'), '5550102');
  expect(screen.getByText('Alice Smith')).toBeTruthy();
  expect(screen.queryByText('Bob Stone')).toBeNull();
  fireEvent.changeText(screen.getByTestId('users-search'), 'nobody here');
  expect(screen.getByText('No users match your search')).toBeTruthy();
  fireEvent.changeText(screen.getByTestId('users-search'), '');
  expect(screen.getByText('Ada Admin')).toBeTruthy();
  expect(screen.getByText('Bob Stone')).toBeTruthy();
});

it('filterUsers matches name and phone, case-insensitively', () => {
  expect(filterUsers(rows, 'ALICE').map((r) => r.id)).toEqual([2]);
  expect(filterUsers(rows, '0203').map((r) => r.id)).toEqual([3]);
  expect(filterUsers(rows, '555-0001').map((r) => r.id)).toEqual([1]);
  expect(filterUsers(rows, 'meridian.test')).toEqual([]);
  expect(filterUsers(rows, '  ')).toHaveLength(3);
});

it("deactivating: PUT {is_active:false}, 'User deactivated successfully', the row updated in place", async () => {
  const { calls } = server({
    'PUT /api/admin/users/2/status': (body) => jsonResponse(200, { ...rows[1], status: (body as { is_active: boolean }).is_active }),
  });
  renderElement(<UsersScreen />);
  await screen.findByText('Alice Smith');
  fireEvent.press(screen.getByTestId('user-toggle-2'));
  expect(await screen.findByText('User deactivated successfully')).toBeTruthy();
  expect(calls.find((c) => c.method === 'PUT')).toMatchObject({ path: '/api/admin/users/2/status', body: { is_active: false } });
  expect(screen.getByTestId('user-status-2')).toHaveTextContent('Inactive');
  expect(screen.getByTestId('user-toggle-2')).toHaveTextContent('Activate');
  // Updated locally: the list was not fetched again.
  expect(calls.filter((c) => c.path === '/api/admin/users')).toHaveLength(1);
});

it("activating: 'User activated successfully'", async () => {
  const { calls } = server({ 'PUT /api/admin/users/3/status': () => jsonResponse(200, { ...rows[2], status: true }) });
  renderElement(<UsersScreen />);
  await screen.findByText('Bob Stone');
  fireEvent.press(screen.getByTestId('user-toggle-3'));
  expect(await screen.findByText('User activated successfully')).toBeTruthy();
  expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ is_active: true });
  expect(screen.getByTestId('user-status-3')).toHaveTextContent('Active');
});

it("a refused change shows the server's error, else 'Failed to update user status'; the row stays", async () => {
  server({
    'PUT /api/admin/users/1/status': () => jsonResponse(422, { error: 'You cannot deactivate yourself', code: 'self_deactivation' }),
    'PUT /api/admin/users/2/status': () => jsonResponse(500),
  });
  renderElement(<UsersScreen />);
  await screen.findByText('Ada Admin');
  fireEvent.press(screen.getByTestId('user-toggle-1'));
  expect(await screen.findByText('You cannot deactivate yourself')).toBeTruthy();
  expect(screen.getByTestId('user-status-1')).toHaveTextContent('Active');
  await waitFor(() => expect(screen.getByTestId('user-toggle-2')).toBeEnabled());
  fireEvent.press(screen.getByTestId('user-toggle-2'));
  expect(await screen.findByText('Failed to update user status')).toBeTruthy();
  expect(screen.getByTestId('user-status-2')).toHaveTextContent('Active');
});
