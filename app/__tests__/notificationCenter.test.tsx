import { QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, onWeb, render, screen, setWindowSize, waitFor, within } from './rtl';
import * as RN from 'react-native';
import { SafeAreaProvider } from 'react-native-safe-area-context';

import { Toaster } from '../components/Toaster';
import { Shell } from '../components/shell/Shell';
import type { User } from '../services/api/types';
import { NotificationsProvider } from '../state/NotificationsProvider';
import { sessionStore } from '../state/session';
import { toast } from '../state/toast';
import { ThemeProvider } from '../theme';
import { fakeDevice } from './fakeDevice';
import { memoryStorage } from './memoryStorage';
import { jsonResponse, makeQueryClient, mockFetch } from './testUtils';

const user: User = {
  id: 4,
  full_name: 'Bob Stone',
  email: 'bob@meridian.test',
  phone_number: '1',
  role: 'User',
  is_active: true,
  created_at: '2026-01-01T00:00:00Z',
};

interface Sock {
  url: string;
  protocols?: string[];
  onopen: ((e: unknown) => void) | null;
  onclose: ((e: unknown) => void) | null;
  onerror: ((e: unknown) => void) | null;
  onmessage: ((e: { data: unknown }) => void) | null;
  close: jest.Mock;
}

const realFetch = global.fetch;
let sockets: Sock[] = [];

function renderCenter(client = makeQueryClient()) {
  const createSocket = (url: string, protocols?: string[]) => {
    const s: Sock = { url, protocols, onopen: null, onclose: null, onerror: null, onmessage: null, close: jest.fn() };
    sockets.push(s);
    return s;
  };
  return render(
    <SafeAreaProvider initialMetrics={{ frame: { x: 0, y: 0, width: 1280, height: 800 }, insets: { top: 0, left: 0, right: 0, bottom: 0 } }}>
      <ThemeProvider storage={memoryStorage({}, { sync: true })}>
        <QueryClientProvider client={client}>
          <NotificationsProvider createSocket={createSocket}>
            <Shell user={user} activeRoute="Dashboard" onNavigate={jest.fn()} onLogout={jest.fn()}>
              <RN.Text>page</RN.Text>
            </Shell>
          </NotificationsProvider>
          <Toaster />
        </QueryClientProvider>
      </ThemeProvider>
    </SafeAreaProvider>,
  );
}

beforeEach(async () => {
  sockets = [];
  setWindowSize(1280);
  await sessionStore.signIn('tok-bob', user);
});

afterEach(async () => {
  global.fetch = realFetch;
  act(() => toast.dismiss());
  await act(() => sessionStore.signOut());
});

it('counts stored + pushed unread notifications, shows the panel and marks read on click', async () => {
  const recent = new Date(Date.now() - 5 * 60_000).toISOString();
  const { calls } = mockFetch({
    'GET /api/user/notifications': () =>
      jsonResponse(200, [
        { id: 11, message: 'Alice requested $12.50 from your account 200300400', is_new: true, created_at: recent },
        { id: 10, message: 'Welcome to Meridian', is_new: false, created_at: '2026-01-01T09:30:00Z' },
      ]),
    'PUT /api/user/notifications/12/read': () => jsonResponse(204),
  });
  renderCenter();

  // Stored: one unread.
  await waitFor(() => expect(screen.getByTestId('notifications-badge')).toHaveTextContent('1'));
  expect(sockets).toHaveLength(1);
  // The token is offered as a subprotocol, never written into the URL.
  expect(sockets[0].url).toMatch(/\/ws\?user_id=4$/);
  expect(sockets[0].protocols).toEqual(['meridian', 'meridian.bearer.tok-bob']);

  // A push: success toast with the message, count + 1.
  act(() => {
    sockets[0].onopen?.({});
    sockets[0].onmessage?.({
      data: JSON.stringify({ id: 12, message: 'You received $25.00 from account 100200300', user_id: 4, created_at: new Date().toISOString() }),
    });
  });
  expect(screen.getByTestId('toast-success')).toHaveTextContent('You received $25.00 from account 100200300');
  expect(screen.getByTestId('notifications-badge')).toHaveTextContent('2');

  // The panel: pushed first, New badges, relative time, footer count.
  fireEvent.press(screen.getByLabelText(/^Notifications/));
  const panel = screen.getByTestId('notifications-panel');
  const items = within(panel).getAllByTestId('notification-item');
  expect(items).toHaveLength(3);
  expect(items[0]).toHaveTextContent(/You received \$25\.00 from account 100200300.*New.*0 minutes ago/);
  expect(items[1]).toHaveTextContent(/Alice requested.*New.*5 minutes ago/);
  expect(items[2]).toHaveTextContent(/Welcome to Meridian.*Jan 1, 2026, 09:30 AM/);
  expect(items[2]).not.toHaveTextContent(/New/);
  expect(within(panel).getByText('You have 2 new notifications')).toBeTruthy();
  expect(within(panel).getByText('View All Notifications')).toBeTruthy();

  // Clicking marks read: PUT .../12/read, count - 1.
  fireEvent.press(items[0]);
  await waitFor(() => expect(calls.some((c) => c.method === 'PUT' && c.path === '/api/user/notifications/12/read')).toBe(true));
  expect(screen.getByText('You have 1 new notifications')).toBeTruthy();
  expect(screen.getByTestId('notifications-badge')).toHaveTextContent('1');
});

it('shows the empty text and no badge without notifications; sign-out closes the socket', async () => {
  mockFetch({ 'GET /api/user/notifications': () => jsonResponse(200, []) });
  renderCenter();
  await waitFor(() => expect(sockets).toHaveLength(1));
  fireEvent.press(screen.getByLabelText(/^Notifications/));
  expect(await screen.findByText('No notifications found')).toBeTruthy();
  expect(screen.getByText('You have 0 new notifications')).toBeTruthy();
  expect(screen.queryByTestId('notifications-badge')).toBeNull();
  await act(() => sessionStore.signOut());
  expect(sockets[0].close).toHaveBeenCalled();
});

it("a failed fetch toasts the server's message, else 'Failed to fetch notifications'", async () => {
  mockFetch({ 'GET /api/user/notifications': () => jsonResponse(500) });
  renderCenter();
  expect(await screen.findByText('Failed to fetch notifications')).toBeTruthy();
});

it('{"type":"resync"} refetches the notifications and what money changes touch', async () => {
  const { calls } = mockFetch({ 'GET /api/user/notifications': () => jsonResponse(200, []) });
  const client = makeQueryClient();
  renderCenter(client);
  await waitFor(() => expect(calls.filter((c) => c.path === '/api/user/notifications')).toHaveLength(1));
  const invalidated: unknown[] = [];
  const spy = jest.spyOn(client, 'invalidateQueries').mockImplementation(async (filters) => {
    invalidated.push(filters?.queryKey);
  });
  act(() => {
    sockets[0].onopen?.({});
    sockets[0].onmessage?.({ data: JSON.stringify({ type: 'resync' }) });
  });
  expect(invalidated).toEqual(expect.arrayContaining([['notifications'], ['accounts'], ['transactions'], ['money-requests'], ['dashboard']]));
  // Not a notification: no toast, no new item.
  expect(screen.queryByTestId('toast-success')).toBeNull();
  spy.mockRestore();
  await act(() => client.invalidateQueries({ queryKey: ['notifications'] }));
  await waitFor(() => expect(calls.filter((c) => c.path === '/api/user/notifications')).toHaveLength(2));
});

it('a pushed notification (a scheduled run, money received) refetches what money changes touch, the scheduled series and limits too', async () => {
  mockFetch({ 'GET /api/user/notifications': () => jsonResponse(200, []) });
  const client = makeQueryClient();
  renderCenter(client);
  await waitFor(() => expect(sockets).toHaveLength(1));
  const invalidated: unknown[] = [];
  const spy = jest.spyOn(client, 'invalidateQueries').mockImplementation(async (filters) => {
    invalidated.push(filters?.queryKey);
  });
  act(() => {
    sockets[0].onopen?.({});
    sockets[0].onmessage?.({ data: JSON.stringify({ id: 90, message: 'Scheduled transfer of $3.00 to account 200300400 succeeded', user_id: 4 }) });
  });
  expect(await screen.findByText('Scheduled transfer of $3.00 to account 200300400 succeeded')).toBeTruthy();
  expect(invalidated).toEqual(expect.arrayContaining([['accounts'], ['transactions'], ['scheduled-transfers'], ['limits']]));
  spy.mockRestore();
});

if (!onWeb) it('background pauses the socket; back in front it reconnects (retries reset) and the list is fetched again', async () => {
  const device = fakeDevice();
  try {
    const { calls } = mockFetch({ 'GET /api/user/notifications': () => jsonResponse(200, []) });
    renderCenter();
    await waitFor(() => expect(sockets).toHaveLength(1));
    act(() => sockets[0].onopen?.({}));
    act(() => device.app('background'));
    expect(sockets[0].close).toHaveBeenCalled();
    const fetchedBefore = calls.filter((c) => c.path === '/api/user/notifications').length;
    act(() => device.app('active'));
    expect(sockets).toHaveLength(2);
    await waitFor(() => expect(calls.filter((c) => c.path === '/api/user/notifications').length).toBe(fetchedBefore + 1));
  } finally {
    jest.restoreAllMocks();
  }
});

it('a socket closed with 4401 (signed out elsewhere) signs this device out at once', async () => {
  mockFetch({ 'GET /api/user/notifications': () => jsonResponse(200, []) });
  renderCenter();
  await waitFor(() => expect(sockets).toHaveLength(1));
  act(() => sockets[0].onopen?.({}));
  expect(sessionStore.getState().token).toBe('tok-bob');
  await act(async () => sockets[0].onclose?.({ code: 4401 }));
  expect(sessionStore.getState().token).toBeNull();
  expect(sessionStore.getState().user).toBeNull();
});
