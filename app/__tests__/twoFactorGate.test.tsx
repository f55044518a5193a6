import { act, fireEvent, onWeb, screen, waitFor } from './rtl';

import { AppNavigator } from '../navigators/AppNavigator';
import { navigationRef } from '../navigators/navigationRef';
import { api } from '../services/api/client';
import { sessionStore } from '../state/session';
import { toast } from '../state/toast';
import { twoFactorGate } from '../state/twoFactorGate';
import { adminUser, customer } from './screenHarness';
import { jsonResponse, mockFetch, renderWithProviders } from './testUtils';

jest.mock('../components/charts', () => ({ AreaChart: () => null }));

const REQUIRED = 'Administrators must turn on two-factor sign-in first: set it up under Security';
const refused = () => jsonResponse(403, { error: REQUIRED, code: 'two_factor_required' });

const realFetch = global.fetch;
const noSocket = () => ({ onopen: null, onclose: null, onerror: null, onmessage: null, close: () => undefined });

beforeEach(async () => {
  if (onWeb) window.history.replaceState(null, '', '/');
  global.WebSocket = jest.fn(noSocket) as unknown as typeof WebSocket;
  await sessionStore.signOut();
});

afterEach(async () => {
  global.fetch = realFetch;
  act(() => toast.dismiss());
  await act(() => sessionStore.signOut());
  twoFactorGate.clear();
});

const currentRoute = () => navigationRef.getCurrentRoute()?.name;
// The Security page is a lazy chunk: on a cold transform cache its first require takes a while.
const LAZY = { timeout: 20_000 };

it('require_2fa_for_admins: an admin refused with two_factor_required is sent to Security, told why, and sent back from other pages', async () => {
  const { calls } = mockFetch({
    'GET /api/user/notifications': refused,
    'GET /api/admin/admindashboard/transactions-summary': refused,
    'GET /api/admin/admindashboard/monthly-transactions': refused,
    'GET /api/admin/accounts': refused,
    'GET /api/admin/users': refused,
    // The dashboard's history and requests, if they go out before the
    // redirect: refused like every admin call, not a 404 of a missing mock.
    'GET /api/admin/transactions/history': refused,
    'GET /api/admin/transactions/money-request': refused,
    'GET /api/auth/2fa': () => jsonResponse(200, { enabled: false, backup_codes_left: 0 }),
    'GET /api/auth/sessions': () => jsonResponse(200, []),
  });
  const errors = jest.spyOn(toast, 'error');
  await sessionStore.signIn('tok-admin', adminUser);
  const { queryClient } = renderWithProviders(<AppNavigator />);
  expect(await screen.findByTestId('screen-security', {}, LAZY)).toBeTruthy();
  expect(currentRoute()).toBe('Security');
  expect(screen.getByTestId('twofactor-required')).toHaveTextContent(REQUIRED);
  expect(await screen.findByTestId('twofactor-setup-start')).toBeTruthy();
  // The sessions (refused too until 2FA is on) are not asked for.
  expect(screen.getByText('Your sessions are listed here once two-factor sign-in is on.')).toBeTruthy();
  expect(calls.some((c) => c.path === '/api/auth/sessions')).toBe(false);
  // The server's sentence, not a "Failed to fetch" per refused query.
  expect(errors).toHaveBeenCalledWith(REQUIRED, { id: 'two-factor-required' });
  expect(errors.mock.calls.filter(([message]) => message !== REQUIRED)).toEqual([]);

  act(() => navigationRef.navigate('App', { screen: 'Users' }));
  await waitFor(() => expect(currentRoute()).toBe('Security'));
  expect(await screen.findByTestId('screen-security')).toBeTruthy();
  await waitFor(() => expect(queryClient.isFetching()).toBe(0));
});

it('the gate is raised by a refused page call, not by the 2FA calls (which answer their own refusals)', async () => {
  mockFetch({ 'POST /api/auth/2fa/disable': refused, 'GET /api/admin/users': refused });
  await sessionStore.signIn('tok-admin', adminUser);
  await expect(api.post('/auth/2fa/disable', { password: 'x', code: '123456' })).rejects.toThrow(REQUIRED);
  expect(twoFactorGate.getState().message).toBeNull();
  await expect(api.get('/admin/users')).rejects.toThrow(REQUIRED);
  expect(twoFactorGate.getState().message).toBe(REQUIRED);
});

it('the profile menu opens the Security page', async () => {
  mockFetch({
    'GET /api/user/notifications': () => jsonResponse(200, []),
    'GET /api/user/dashboard/monthly-transactions': () => jsonResponse(200, []),
    'GET /api/auth/2fa': () => jsonResponse(200, { enabled: false, backup_codes_left: 0 }),
    'GET /api/auth/sessions': () => jsonResponse(200, []),
  });
  await sessionStore.signIn('tok', customer);
  const { queryClient } = renderWithProviders(<AppNavigator />);
  expect(await screen.findByTestId('screen-user-dashboard', {}, LAZY)).toBeTruthy();
  fireEvent.press(screen.getByLabelText(/open profile menu$/));
  fireEvent.press(await screen.findByTestId('menu-security'));
  expect(await screen.findByTestId('screen-security', {}, LAZY)).toBeTruthy();
  expect(currentRoute()).toBe('Security');
  expect(screen.queryByTestId('twofactor-required')).toBeNull();
  if (onWeb) expect(window.location.pathname).toBe('/security');
  await waitFor(() => expect(queryClient.isFetching()).toBe(0));
});
