import { act, fireEvent, screen, waitFor, within } from './rtl';

import NotificationsScreen from '../screens/NotificationsScreen';
import SettingsScreen from '../screens/SettingsScreen';
import { toast } from '../state/toast';
import { customer, pending, renderElement, signedInAs } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const MIN = 60_000;

const stored = () => [
  { id: 5, message: 'Bob requested $12.50 from your account 100200300', is_new: true, created_at: ago(1 * MIN + 5_000) },
  { id: 4, message: 'Your money request of $9.00 was declined', is_new: true, created_at: ago(3 * 60 * MIN + 5_000) },
  { id: 3, message: 'Your money request of $5.00 expired', is_new: false, created_at: ago(30 * MIN + 5_000) },
  { id: 2, message: 'You received $25.00 from account 200300400', is_new: false, created_at: '2026-01-05T14:30:00Z' },
];

signedInAs(customer, 'tok-alice');


it('lists every notification with New badges, relative times and a count', async () => {
  mockFetch({ 'GET /api/user/notifications': () => jsonResponse(200, stored()) });
  renderElement(<NotificationsScreen />);
  expect(screen.getByText('Notifications')).toBeTruthy();
  await waitFor(() => expect(screen.getAllByTestId('notification-row')).toHaveLength(4));
  expect(screen.getByTestId('notifications-total')).toHaveTextContent('4 notifications');
  const rows = screen.getAllByTestId('notification-row');
  expect(rows[0]).toHaveTextContent(/Bob requested \$12\.50.*New.*1 minute ago/);
  expect(rows[1]).toHaveTextContent(/declined.*New.*3 hours ago/);
  expect(rows[2]).toHaveTextContent(/expired.*30 minutes ago/);
  expect(within(rows[2]).queryByTestId('notification-new-badge')).toBeNull();
  expect(rows[3]).toHaveTextContent(/You received \$25\.00.*Jan 5, 2026, 02:30 PM/);
  expect(screen.getAllByTestId('notification-new-badge')).toHaveLength(2);
});

it('the tabs All, Requests and Alerts filter by the message text', async () => {
  mockFetch({ 'GET /api/user/notifications': () => jsonResponse(200, stored()) });
  renderElement(<NotificationsScreen />);
  await waitFor(() => expect(screen.getAllByTestId('notification-row')).toHaveLength(4));
  expect(screen.getByRole('tab', { name: 'All' })).toBeSelected();

  fireEvent.press(screen.getByTestId('notifications-tab-requests'));
  expect(screen.getByRole('tab', { name: 'Requests' })).toBeSelected();
  expect(screen.getAllByTestId('notification-row')).toHaveLength(3);
  expect(screen.queryByText(/You received/)).toBeNull();
  expect(screen.getByTestId('notifications-total')).toHaveTextContent('3 notifications');

  fireEvent.press(screen.getByTestId('notifications-tab-alerts'));
  const alerts = screen.getAllByTestId('notification-row');
  expect(alerts).toHaveLength(2);
  expect(alerts[0]).toHaveTextContent(/declined/);
  expect(alerts[1]).toHaveTextContent(/expired/);

  fireEvent.press(screen.getByTestId('notifications-tab-all'));
  expect(screen.getAllByTestId('notification-row')).toHaveLength(4);
});

it('a tab without matches shows the empty text; one item reads "1 notification"', async () => {
  mockFetch({ 'GET /api/user/notifications': () => jsonResponse(200, [stored()[3]]) });
  renderElement(<NotificationsScreen />);
  await waitFor(() => expect(screen.getByTestId('notifications-total')).toHaveTextContent('1 notification'));
  fireEvent.press(screen.getByTestId('notifications-tab-alerts'));
  expect(screen.getByText('No notifications found')).toBeTruthy();
  expect(screen.getByTestId('notifications-total')).toHaveTextContent('0 notifications');
});

it('clicking a new item marks it read (PUT .../{id}/read) and drops its badge', async () => {
  const { calls } = mockFetch({
    'GET /api/user/notifications': () => jsonResponse(200, stored()),
    'PUT /api/user/notifications/5/read': () => jsonResponse(204),
  });
  renderElement(<NotificationsScreen />);
  await waitFor(() => expect(screen.getAllByTestId('notification-row')).toHaveLength(4));
  const first = screen.getAllByTestId('notification-row')[0];
  expect(within(first).getByTestId('notification-new-badge')).toBeTruthy();
  fireEvent.press(first);
  await waitFor(() => expect(calls.some((c) => c.method === 'PUT' && c.path === '/api/user/notifications/5/read')).toBe(true));
  expect(within(screen.getAllByTestId('notification-row')[0]).queryByTestId('notification-new-badge')).toBeNull();
  expect(screen.getAllByTestId('notification-new-badge')).toHaveLength(1);
  // An already read item makes no call.
  const before = calls.length;
  fireEvent.press(screen.getAllByTestId('notification-row')[3]);
  expect(calls.length).toBe(before);
});

it('shows a loading state while the list is fetched', async () => {
  mockFetch({ 'GET /api/user/notifications': pending });
  renderElement(<NotificationsScreen />);
  expect(await screen.findByText('Loading notifications...')).toBeTruthy();
  expect(screen.queryByText('No notifications found')).toBeNull();
});

it('the empty state', async () => {
  mockFetch({ 'GET /api/user/notifications': () => jsonResponse(200, []) });
  renderElement(<NotificationsScreen />);
  expect(await screen.findByText('No notifications found')).toBeTruthy();
  expect(screen.getByTestId('notifications-total')).toHaveTextContent('0 notifications');
});

it("the error state shows the stored error text (the server's message, else 'Failed to fetch notifications')", async () => {
  mockFetch({ 'GET /api/user/notifications': () => jsonResponse(500, { message: 'Notifications are unavailable' }) });
  const first = renderElement(<NotificationsScreen />);
  expect(await screen.findByTestId('notifications-error')).toHaveTextContent('Notifications are unavailable');
  first.unmount();
  act(() => toast.dismiss());

  mockFetch({ 'GET /api/user/notifications': () => jsonResponse(500) });
  renderElement(<NotificationsScreen />);
  expect(await screen.findByTestId('notifications-error')).toHaveTextContent('Failed to fetch notifications');
  expect(screen.queryByText('No notifications found')).toBeNull();
});

// The spec's Settings is only its heading; contract §8 adds a customer's home currency
// (an admin's Settings is still only its heading: HomeCurrency.test.tsx).
it("Settings shows its heading and the customer's home currency", async () => {
  mockFetch({ 'GET /api/user/preferences': () => jsonResponse(200, { home_currency: 'USD' }) });
  renderElement(<SettingsScreen />);
  expect(screen.getByRole('heading', { name: 'Settings' })).toBeTruthy();
  expect(await screen.findByTestId('settings-home-currency')).toBeTruthy();
});
