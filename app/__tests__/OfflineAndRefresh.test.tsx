/**
 * The offline banner shows while the device is offline (NetInfo on
 * Android/iOS, the browser's events on the web drive TanStack Query's
 * onlineManager), and pulling a page down refetches what it shows
 * (Android/iOS: the shell's scroll view and the self-scrolling lists).
 */
import { onlineManager } from '@tanstack/react-query';
import { act, onWeb, screen } from './rtl';
import { Text } from 'react-native';

import { Shell } from '../components/shell/Shell';
import { VirtualRows } from '../components/VirtualRows';
import { customer, renderElement } from './screenHarness';

afterEach(() => act(() => onlineManager.setOnline(true)));

function renderShell() {
  return renderElement(
    <Shell user={customer} activeRoute="Dashboard" onNavigate={jest.fn()} onLogout={jest.fn()}>
      <Text>page</Text>
    </Shell>,
  );
}

it('says when the device is offline, and stops saying it when it is back', () => {
  renderShell();
  expect(screen.queryByTestId('offline-banner')).toBeNull();
  act(() => onlineManager.setOnline(false));
  expect(screen.getByText('You are offline: what you see may be out of date.')).toBeTruthy();
  act(() => onlineManager.setOnline(true));
  expect(screen.queryByTestId('offline-banner')).toBeNull();
});

it('pulling the page down refetches the queries on screen (Android/iOS)', async () => {
  const { queryClient } = renderShell();
  if (onWeb) {
    // The web has no pull gesture: the browser reloads.
    expect(screen.queryByTestId('pull-to-refresh')).toBeNull();
    return;
  }
  const refetch = jest.spyOn(queryClient, 'refetchQueries');
  const control = screen.UNSAFE_getByProps({ testID: 'pull-to-refresh' });
  await act(async () => control.props.onRefresh());
  expect(refetch).toHaveBeenCalledWith({ type: 'active' });
});

it('a self-scrolling list pulls to refresh too (Android/iOS)', async () => {
  const { queryClient } = renderElement(<VirtualRows data={[1, 2]} keyExtractor={String} renderRow={(n) => <Text>{`row ${n}`}</Text>} />);
  if (onWeb) return; // a plain table in the page there (VirtualRows.web.tsx)
  const refetch = jest.spyOn(queryClient, 'refetchQueries');
  await act(async () => screen.UNSAFE_getByProps({ testID: 'pull-to-refresh' }).props.onRefresh());
  expect(refetch).toHaveBeenCalledWith({ type: 'active' });
});
