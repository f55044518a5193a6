import { act, fireEvent, onWeb, screen, waitFor } from './rtl';

import { AppNavigator } from '../navigators/AppNavigator';
import { navigationRef } from '../navigators/navigationRef';
import type { User } from '../services/api/types';
import { sessionStore } from '../state/session';
import { toast } from '../state/toast';
import { jsonResponse, mockFetch, renderWithProviders } from './testUtils';

// Charts are not under test here.
jest.mock('../components/charts', () => ({ AreaChart: () => null }));

const customer: User = {
  id: 2,
  full_name: 'Alice Smith',
  email: 'alice@meridian.test',
  phone_number: '1',
  role: 'User',
  is_active: true,
  created_at: '2026-01-01T00:00:00Z',
};
const admin: User = { ...customer, id: 1, full_name: 'Ada Admin', email: 'admin@meridian.test', role: 'Admin' };

const realFetch = global.fetch;

function serverMock(extra: Record<string, (body: unknown) => Response> = {}) {
  return mockFetch({
    'GET /api/user/notifications': () => jsonResponse(200, []),
    'GET /api/user/dashboard/monthly-transactions': () => jsonResponse(200, []),
    'GET /api/admin/admindashboard/monthly-transactions': () => jsonResponse(200, []),
    'POST /api/auth/logout': () => jsonResponse(204),
    ...extra,
  });
}

const noSocket = () => ({ onopen: null, onclose: null, onerror: null, onmessage: null, close: () => undefined });

beforeEach(async () => {
  // The web keeps the page in the URL: every test starts at /.
  if (onWeb) window.history.replaceState(null, '', '/');
  global.WebSocket = jest.fn(noSocket) as unknown as typeof WebSocket;
  await sessionStore.signOut();
});

afterEach(async () => {
  global.fetch = realFetch;
  act(() => toast.dismiss());
  await act(() => sessionStore.signOut());
});

const currentRoute = () => navigationRef.getCurrentRoute()?.name;

it('a signed-out visitor gets /auth; after signing in, the page they asked for', async () => {
  serverMock({ 'POST /api/auth/login': () => jsonResponse(200, { token: 'tok', expires_at: '', user: customer }) });
  renderWithProviders(<AppNavigator />);
  expect(await screen.findByText('Welcome to Meridian Bank')).toBeTruthy();
  expect(currentRoute()).toBe('Auth');
  fireEvent.changeText(screen.getByLabelText('Username'), customer.email);
  fireEvent.changeText(screen.getByLabelText('Password'), 'alice12345');
  fireEvent.press(screen.getByTestId('login-submit'));
  expect(await screen.findByTestId('screen-user-dashboard')).toBeTruthy();
  expect(currentRoute()).toBe('Dashboard');
});

it('remembers a deeper page', async () => {
  serverMock({ 'POST /api/auth/login': () => jsonResponse(200, { token: 'tok', expires_at: '', user: customer }) });
  await sessionStore.signIn('tok', customer);
  renderWithProviders(<AppNavigator />);
  expect(await screen.findByTestId('screen-user-dashboard')).toBeTruthy();
  act(() => navigationRef.navigate('App', { screen: 'TransactionHistory', params: { account_id: '100200300' } }));
  expect(await screen.findByText('Account 100200300')).toBeTruthy();
  // The token dies (e.g. a 401): back to /auth, page remembered.
  await act(() => sessionStore.signOut());
  expect(await screen.findByText('Welcome to Meridian Bank')).toBeTruthy();
  fireEvent.changeText(screen.getByLabelText('Username'), customer.email);
  fireEvent.changeText(screen.getByLabelText('Password'), 'alice12345');
  fireEvent.press(screen.getByTestId('login-submit'));
  expect(await screen.findByText('Account 100200300')).toBeTruthy();
  expect(currentRoute()).toBe('TransactionHistory');
});

it("a customer on an admin page gets 'Unauthorized access' and goes to /", async () => {
  serverMock();
  await sessionStore.signIn('tok', customer);
  renderWithProviders(<AppNavigator />);
  expect(await screen.findByTestId('screen-user-dashboard')).toBeTruthy();
  act(() => navigationRef.navigate('App', { screen: 'Users' }));
  expect(await screen.findByText('Unauthorized access')).toBeTruthy();
  await waitFor(() => expect(currentRoute()).toBe('Dashboard'));
  expect(screen.queryByTestId('screen-users')).toBeNull();
});

it('an admin gets the Admin Dashboard and the admin pages', async () => {
  serverMock();
  await sessionStore.signIn('tok', admin);
  renderWithProviders(<AppNavigator />);
  expect(await screen.findByTestId('screen-admin-dashboard')).toBeTruthy();
  expect(screen.getByText('Admin Dashboard')).toBeTruthy();
  act(() => navigationRef.navigate('App', { screen: 'Assign' }));
  expect(await screen.findByTestId('screen-assign')).toBeTruthy();
  expect(screen.getByText('Role Assignment')).toBeTruthy();
});

it('Logout clears the session and shows /auth', async () => {
  const { calls } = serverMock();
  await sessionStore.signIn('tok', customer);
  renderWithProviders(<AppNavigator />);
  expect(await screen.findByTestId('screen-user-dashboard')).toBeTruthy();
  fireEvent.press(screen.getByLabelText(/open profile menu$/));
  fireEvent.press(screen.getByText('Logout'));
  expect(await screen.findByText('Welcome to Meridian Bank')).toBeTruthy();
  expect(sessionStore.getState()).toMatchObject({ token: null, user: null });
  await waitFor(() => expect(calls.some((c) => c.path === '/api/auth/logout')).toBe(true));
});

it('a 401 from the API signs out and shows /auth', async () => {
  serverMock({ 'GET /api/user/notifications': () => jsonResponse(401, { error: 'Invalid or expired token' }) });
  await sessionStore.signIn('expired', customer);
  renderWithProviders(<AppNavigator />);
  expect(await screen.findByText('Welcome to Meridian Bank')).toBeTruthy();
  expect(sessionStore.getState().token).toBeNull();
});

it("an admin on a customer page gets 'Unauthorized access' and goes to /", async () => {
  serverMock();
  await sessionStore.signIn('tok', admin);
  renderWithProviders(<AppNavigator />);
  expect(await screen.findByTestId('screen-admin-dashboard')).toBeTruthy();
  for (const page of ['TransferFunds', 'AccountRegistration', 'MoneyRequest'] as const) {
    act(() => toast.dismiss());
    act(() => navigationRef.navigate('App', { screen: page }));
    expect(await screen.findByText('Unauthorized access')).toBeTruthy();
    await waitFor(() => expect(currentRoute()).toBe('Dashboard'));
  }
  expect(screen.queryByTestId('screen-transfer-funds')).toBeNull();
  expect(screen.queryByTestId('transfer-open')).toBeNull();
});

async function signInThroughForm(user: User) {
  fireEvent.changeText(screen.getByLabelText('Username'), user.email);
  fireEvent.changeText(screen.getByLabelText('Password'), 'password123');
  fireEvent.press(screen.getByTestId('login-submit'));
}

it("a page remembered when one user's session ended is not where the next user lands", async () => {
  const bob: User = { ...customer, id: 9, full_name: 'Bob Brown', email: 'bob@meridian.test' };
  serverMock({ 'POST /api/auth/login': (body) => jsonResponse(200, { token: 'tok-b', expires_at: '', user: (body as { email: string }).email === bob.email ? bob : customer }) });
  await sessionStore.signIn('tok', customer);
  renderWithProviders(<AppNavigator />);
  expect(await screen.findByTestId('screen-user-dashboard')).toBeTruthy();
  act(() => navigationRef.navigate('App', { screen: 'TransactionHistory', params: { account_id: '100200300' } }));
  expect(await screen.findByText('Account 100200300')).toBeTruthy();
  // Alice's token dies; Bob signs in on the same device.
  await act(() => sessionStore.signOut());
  expect(await screen.findByText('Welcome to Meridian Bank')).toBeTruthy();
  await signInThroughForm(bob);
  expect(await screen.findByTestId('screen-user-dashboard')).toBeTruthy();
  expect(currentRoute()).toBe('Dashboard');
  expect(screen.queryByText('Account 100200300')).toBeNull();
});

it('after Logout the next sign-in lands on /, not on the page left', async () => {
  serverMock({ 'POST /api/auth/login': () => jsonResponse(200, { token: 'tok-2', expires_at: '', user: customer }) });
  await sessionStore.signIn('tok', customer);
  renderWithProviders(<AppNavigator />);
  expect(await screen.findByTestId('screen-user-dashboard')).toBeTruthy();
  act(() => navigationRef.navigate('App', { screen: 'TransactionHistory', params: { account_id: '100200300' } }));
  expect(await screen.findByText('Account 100200300')).toBeTruthy();
  fireEvent.press(screen.getByLabelText(/open profile menu$/));
  fireEvent.press(screen.getByText('Logout'));
  expect(await screen.findByText('Welcome to Meridian Bank')).toBeTruthy();
  await signInThroughForm(customer);
  expect(await screen.findByTestId('screen-user-dashboard')).toBeTruthy();
  expect(currentRoute()).toBe('Dashboard');
});
