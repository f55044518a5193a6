/**
 * The inactivity lock and the biometric gate (Android/iOS): back in front
 * after lock_after in the background, a signed-in app is locked until the
 * device's biometrics pass; the app switcher sees a cover, never the
 * accounts. The web has neither (no switcher snapshot, no biometrics).
 */
import { act, fireEvent, onWeb, render, screen, waitFor } from './rtl';
import { QueryClientProvider } from '@tanstack/react-query';
import { AppState } from 'react-native';

import { AppLockGate } from '../components/AppLockGate';
import type { Biometrics } from '../services/biometrics';
import { createAppLock, setLockAfter } from '../state/appLock';
import { ThemeProvider } from '../theme';
import { memoryStorage } from './memoryStorage';
import { queryKeys } from '../services/api/keys';
import { makeQueryClient } from './testUtils';

afterEach(() => setLockAfter(undefined));

describe('the inactivity lock', () => {
  const clock = () => {
    let now = 1_000_000;
    return { now: () => now, pass: (ms: number) => (now += ms) };
  };

  it('locks after lock_after away, not before; a signed-out app never', () => {
    const c = clock();
    let signedIn = true;
    const lock = createAppLock({ now: c.now, lockAfterMs: () => 5 * 60_000, signedIn: () => signedIn });
    lock.onAppState('background');
    c.pass(5 * 60_000 - 1);
    lock.onAppState('active');
    expect(lock.getState()).toEqual({ covered: false, locked: false });

    lock.onAppState('background');
    c.pass(5 * 60_000);
    lock.onAppState('active');
    expect(lock.getState().locked).toBe(true);
    lock.unlock();
    expect(lock.getState().locked).toBe(false);

    signedIn = false;
    lock.onAppState('background');
    c.pass(60 * 60_000);
    lock.onAppState('active');
    expect(lock.getState().locked).toBe(false);
  });

  it("counts from when the app left, not from iOS's short 'inactive'", () => {
    const c = clock();
    const lock = createAppLock({ now: c.now, lockAfterMs: () => 60_000, signedIn: () => true });
    lock.onAppState('inactive');
    expect(lock.getState().covered).toBe(true);
    c.pass(10 * 60_000);
    lock.onAppState('active');
    expect(lock.getState()).toEqual({ covered: false, locked: false });
  });
});

describe('the biometric gate', () => {
  function renderGate(biometrics: Biometrics, lock = createAppLock({ lockAfterMs: () => 0, signedIn: () => true })) {
    const client = makeQueryClient();
    client.setQueryData(queryKeys.config, { customer_funding: true, require_2fa_for_admins: false, lock_after_seconds: 300 });
    const onSignOut = jest.fn();
    render(
      <ThemeProvider storage={memoryStorage({}, { sync: true })}>
        <QueryClientProvider client={client}>
          <AppLockGate lock={lock} biometrics={biometrics} onSignOut={onSignOut} />
        </QueryClientProvider>
      </ThemeProvider>,
    );
    return { lock, onSignOut };
  }
  const fake = (answers: boolean[], available = true) => ({
    available: jest.fn(async () => available),
    authenticate: jest.fn(async () => answers.shift() ?? false),
  });
  const away = (lock: ReturnType<typeof createAppLock>) =>
    act(async () => {
      lock.onAppState('background');
      lock.onAppState('active');
    });

  if (onWeb) {
    it('draws nothing on the web', async () => {
      const { lock } = renderGate(fake([true]));
      await away(lock);
      expect(screen.queryByTestId('app-lock')).toBeNull();
      expect(screen.queryByTestId('privacy-cover')).toBeNull();
    });
    return;
  }

  it('covers the app while it is away (the app switcher)', () => {
    const { lock } = renderGate(fake([]));
    act(() => lock.onAppState('inactive'));
    expect(screen.getByTestId('privacy-cover')).toBeTruthy();
    act(() => lock.onAppState('active'));
    expect(screen.queryByTestId('privacy-cover')).toBeNull();
  });

  it('asks for the biometrics at once; a failure keeps it locked, Unlock asks again', async () => {
    const bio = fake([false, true]);
    const { lock } = renderGate(bio);
    await away(lock);
    expect(screen.getByTestId('app-lock')).toBeTruthy();
    await waitFor(() => expect(bio.authenticate).toHaveBeenCalledTimes(1));
    expect(screen.getByTestId('app-lock')).toBeTruthy();
    await act(async () => fireEvent.press(screen.getByTestId('app-lock-unlock')));
    await waitFor(() => expect(screen.queryByTestId('app-lock')).toBeNull());
    expect(bio.authenticate).toHaveBeenCalledTimes(2);
  });

  it('a device without biometrics or passcode can only sign out', async () => {
    const bio = fake([], false);
    const { lock, onSignOut } = renderGate(bio);
    await away(lock);
    expect(await screen.findByText('This device has no Face ID, fingerprint or passcode set up: sign in again.')).toBeTruthy();
    expect(screen.queryByTestId('app-lock-unlock')).toBeNull();
    expect(bio.authenticate).not.toHaveBeenCalled();
    await act(async () => fireEvent.press(screen.getByTestId('app-lock-sign-out')));
    expect(onSignOut).toHaveBeenCalledTimes(1);
    expect(lock.getState().locked).toBe(false);
  });

  it('follows React Native AppState', () => {
    const spy = jest.spyOn(AppState, 'addEventListener');
    renderGate(fake([]));
    expect(spy).toHaveBeenCalledWith('change', expect.any(Function));
    spy.mockRestore();
  });
});
