import { chooseOption, fireEvent, isOption, optionLabels, screen, selectedOption, waitFor, within } from './rtl';

import AssignScreen from '../screens/AssignScreen';
import type { AdminUserRow } from '../services/api/types';
import { sessionStore } from '../state/session';
import { adminUser, pending, renderElement, signedInAs } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

let rows: AdminUserRow[];
function server(extra: Parameters<typeof mockFetch>[0] = {}) {
  return mockFetch({
    'GET /api/user/notifications': () => jsonResponse(200, []),
    'GET /api/admin/users': () => jsonResponse(200, rows),
    ...extra,
  });
}

function chooseRole(userId: number, role: 'Admin' | 'User') {
  chooseOption(`assign-role-${userId}`, role);
}

signedInAs(adminUser, 'tok-admin');

beforeEach(async () => {
  rows = [
    { id: 1, name: 'Ada Admin', email: 'admin@meridian.test', phone: '+15550001', role: 'Admin', status: true, created: '2026-01-02T10:00:00Z' },
    { id: 2, name: 'Alice Smith', email: 'alice@meridian.test', phone: '+15550102', role: 'User', status: true, created: '2026-01-03T10:00:00Z' },
  ];
});


it('lists Name, Phone, Current Role, a role selector and an Assign button', async () => {
  server();
  renderElement(<AssignScreen />);
  expect(screen.getByText('Role Assignment')).toBeTruthy();
  expect(await screen.findByText('Alice Smith')).toBeTruthy();
  for (const title of ['Name', 'Phone', 'Current Role']) expect(screen.getByText(title)).toBeTruthy();
  expect(selectedOption('assign-role-2')).toBe('Select a role');
  expect(screen.getByTestId('assign-role-2')).toHaveAccessibleName('Role for Alice Smith');
});

it('Assign is disabled until a role is chosen; the options are Admin and User', async () => {
  server();
  renderElement(<AssignScreen />);
  await screen.findByText('Alice Smith');
  expect(screen.getByTestId('assign-submit-2')).toBeDisabled();
  expect(optionLabels('assign-role-2')).toEqual(['Admin', 'User']);
  chooseRole(2, 'Admin');
  expect(selectedOption('assign-role-2')).toBe('Admin');
  expect(screen.getByTestId('assign-submit-2')).toBeEnabled();
  // Other rows stay disabled.
  expect(screen.getByTestId('assign-submit-1')).toBeDisabled();
});

it("assigning: POST {user_id, roles:[role]}, 'Role assigned successfully', Current Role updated", async () => {
  const { calls } = server({
    'POST /api/admin/assign-roles': () => {
      rows = rows.map((r) => (r.id === 2 ? { ...r, role: 'Admin' } : r));
      return jsonResponse(200, { message: 'Role assigned successfully', user: rows[1] });
    },
  });
  renderElement(<AssignScreen />);
  await screen.findByText('Alice Smith');
  chooseRole(2, 'Admin');
  fireEvent.press(screen.getByTestId('assign-submit-2'));
  expect(await screen.findByTestId('toast-success')).toHaveTextContent('Role assigned successfully');
  expect(calls.find((c) => c.method === 'POST')).toMatchObject({ path: '/api/admin/assign-roles', body: { user_id: 2, roles: ['Admin'] } });
  const table = screen.getByTestId('assign-table');
  await waitFor(() => expect(within(table).getAllByText('Admin').filter((el) => !isOption(el))).toHaveLength(2));
  // The selector resets.
  expect(selectedOption('assign-role-2')).toBe('Select a role');
  expect(screen.getByTestId('assign-submit-2')).toBeDisabled();
});

it("a refused assignment shows 'Failed to assign role'", async () => {
  server({ 'POST /api/admin/assign-roles': () => jsonResponse(422, { error: 'At least one active admin is required', code: 'last_admin' }) });
  renderElement(<AssignScreen />);
  await screen.findByText('Ada Admin');
  chooseRole(1, 'User');
  fireEvent.press(screen.getByTestId('assign-submit-1'));
  expect(await screen.findByTestId('toast-error')).toHaveTextContent('Failed to assign role');
  expect(screen.queryByTestId('toast-success')).toBeNull();
  expect(sessionStore.getState().user?.role).toBe('Admin');
});

it('loading, empty and error states', async () => {
  server({ 'GET /api/admin/users': pending });
  const first = renderElement(<AssignScreen />);
  expect(await screen.findByText('Loading users...')).toBeTruthy();
  first.unmount();

  server({ 'GET /api/admin/users': () => jsonResponse(200, []) });
  const second = renderElement(<AssignScreen />);
  expect(await screen.findByText('No users found')).toBeTruthy();
  second.unmount();

  server({ 'GET /api/admin/users': () => jsonResponse(500) });
  renderElement(<AssignScreen />);
  expect(await screen.findByTestId('toast-error')).toHaveTextContent('Failed to fetch users');
});
