import { sessionStore } from './session';
import { createStore, useStore } from './store';

/**
 * The inactivity lock and the privacy cover (Android / iOS).
 *
 * - Cover: while the app is not in front ('inactive' — the app switcher —
 *   or 'background'), a plain cover hides the screen, so the switcher's
 *   snapshot shows no balance.
 * - Lock: back in front after `lock_after` (the server's /api/config,
 *   default 5 minutes) or more in the background, a signed-in app is locked
 *   until the person passes the device's biometrics (Face ID, a fingerprint)
 *   or its passcode (services/biometrics.ts). A device with neither cannot
 *   unlock: the lock screen offers only signing out.
 */
export interface AppLockState {
  covered: boolean;
  locked: boolean;
}

export interface AppLockOptions {
  now?: () => number;
  /** How long the app may stay away before it locks (ms). */
  lockAfterMs: () => number;
  /** Whether someone is signed in (a signed-out app has nothing to lock). */
  signedIn: () => boolean;
}

export type AppStatus = 'active' | 'inactive' | 'background' | string;

export function createAppLock({ now = Date.now, lockAfterMs, signedIn }: AppLockOptions) {
  const store = createStore<AppLockState>({ covered: false, locked: false });
  let awaySince: number | null = null;
  return {
    getState: store.getState,
    subscribe: store.subscribe,
    /** The app's state changed (React Native's AppState). */
    onAppState(status: AppStatus) {
      if (status === 'active') {
        const away = awaySince;
        awaySince = null;
        const expired = away !== null && now() - away >= lockAfterMs();
        store.setState((s) => ({ covered: false, locked: s.locked || (expired && signedIn()) }));
        return;
      }
      // 'inactive' (iOS: the switcher, a call) covers; 'background' also starts the clock.
      if (status === 'background' && awaySince === null) awaySince = now();
      store.setState((s) => (s.covered ? s : { ...s, covered: true }));
    },
    /** The biometrics passed. */
    unlock() {
      store.setState((s) => ({ ...s, locked: false }));
    },
    /** Signed out: nothing left to guard. */
    reset() {
      awaySince = null;
      store.setState({ covered: false, locked: false });
    },
  };
}

export type AppLock = ReturnType<typeof createAppLock>;

export function useAppLock(lock: AppLock): AppLockState {
  return useStore(lock);
}

/** lock_after's default (the server's config answers its own). */
export const DEFAULT_LOCK_AFTER_MS = 5 * 60_000;

let lockAfterMs = DEFAULT_LOCK_AFTER_MS;

/** The server's lock_after (GET /api/config, lock_after_seconds). */
export function setLockAfter(seconds: number | null | undefined): void {
  lockAfterMs = typeof seconds === 'number' && seconds > 0 ? seconds * 1000 : DEFAULT_LOCK_AFTER_MS;
}

/** The app's lock. */
export const appLock = createAppLock({ lockAfterMs: () => lockAfterMs, signedIn: () => sessionStore.isAuthenticated() });
