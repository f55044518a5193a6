import { focusManager, onlineManager } from '@tanstack/react-query';

import { fakeDevice } from '../__tests__/fakeDevice';
import { subscribeAppLifecycle, wireQueryManagers } from './appLifecycle';

afterEach(() => jest.restoreAllMocks());

describe('app lifecycle (Android/iOS)', () => {
  it('reports background and foreground, ignoring iOS inactive blips, and a network that comes back', () => {
    const device = fakeDevice();
    const onForeground = jest.fn();
    const onBackground = jest.fn();
    const unsubscribe = subscribeAppLifecycle({ onForeground, onBackground });
    device.app('inactive');
    device.app('active');
    expect(onForeground).not.toHaveBeenCalled();
    device.app('background');
    expect(onBackground).toHaveBeenCalledTimes(1);
    device.app('active');
    expect(onForeground).toHaveBeenCalledTimes(1);
    device.net(false);
    device.net(true);
    expect(onForeground).toHaveBeenCalledTimes(2);
    unsubscribe();
    expect(device.listeners()).toBe(0);
  });

  it("drives TanStack Query's focus from AppState and online state from NetInfo", () => {
    const device = fakeDevice();
    wireQueryManagers();
    device.app('background');
    expect(focusManager.isFocused()).toBe(false);
    device.app('active');
    expect(focusManager.isFocused()).toBe(true);
    device.net(false);
    expect(onlineManager.isOnline()).toBe(false);
    device.net(true);
    expect(onlineManager.isOnline()).toBe(true);
  });
});
