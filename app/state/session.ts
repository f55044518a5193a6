import { storage as defaultStorage, STORAGE_KEYS, type KeyValueStorage } from '../services/storage';
import type { RememberedRoute } from '../navigators/routes';
import type { User } from '../services/api/types';
import { createStore, useStore, type Store } from './store';

export interface SessionState {
  token: string | null;
  user: User | null;
  /** False until the stored session has been read (Android/iOS read asynchronously). */
  hydrated: boolean;
}

/**
 * The stored `user` is JSON. It is ignored when missing, when it is the literal
 * text `undefined` (what `localStorage.setItem('user', undefined)` leaves behind)
 * or when it does not parse to an object.
 */
export function parseStoredUser(raw: string | null | undefined): User | null {
  if (raw == null || raw === 'undefined' || raw === '') return null;
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as User) : null;
  } catch {
    return null;
  }
}

function normaliseToken(raw: string | null | undefined): string | null {
  if (raw == null || raw === '' || raw === 'undefined' || raw === 'null') return null;
  return raw;
}

export interface SessionStore extends Pick<Store<SessionState>, 'getState' | 'subscribe'> {
  /** Reads token and user from storage (once; later calls return the same promise). */
  hydrate(): Promise<SessionState>;
  signIn(token: string, user: User): Promise<void>;
  setUser(user: User): Promise<void>;
  /**
   * Removes token and user (storage and memory). `explicit`: the user chose
   * Logout, so no page is remembered for the next sign-in; otherwise (a 401,
   * an expired token) the page is kept for the same user only.
   */
  signOut(options?: { explicit?: boolean }): Promise<void>;
  isAuthenticated(): boolean;
  /**
   * The page a signed-out visitor asked for (spec §2: remembered while they
   * sign in). Ignored after an explicit Logout.
   */
  rememberRoute(route: RememberedRoute | null): void;
  /**
   * The remembered page, once, if it belongs to the user now signed in: a
   * page remembered when another user's session ended is dropped, so the
   * next person on the device never lands on the previous user's page.
   */
  takeRememberedRoute(): RememberedRoute | null;
}

export function createSessionStore(storage: KeyValueStorage): SessionStore {
  const syncToken = storage.getItemSync(STORAGE_KEYS.token);
  const initial: SessionState =
    syncToken === undefined
      ? { token: null, user: null, hydrated: false }
      : {
          token: normaliseToken(syncToken),
          user: parseStoredUser(storage.getItemSync(STORAGE_KEYS.user)),
          hydrated: true,
        };
  const store = createStore<SessionState>(initial);
  // Bumped by every write, so a slow hydrate never overwrites a newer sign-in/out.
  let version = 0;
  let hydrating: Promise<SessionState> | null = null;
  // The remembered page and whose session it was (null: nobody was signed in).
  let remembered: { route: RememberedRoute; owner: number | null } | null = null;
  // Who was signed in when the last session ended by itself (401, expiry); null after Logout.
  let endedSessionUser: number | null = null;
  let loggedOut = false;

  return {
    getState: store.getState,
    subscribe: store.subscribe,
    hydrate() {
      if (store.getState().hydrated) return Promise.resolve(store.getState());
      if (hydrating) return hydrating;
      const started = version;
      hydrating = (async () => {
        let token: string | null = null;
        let user: User | null = null;
        try {
          const [rawToken, rawUser] = await Promise.all([
            storage.getItem(STORAGE_KEYS.token),
            storage.getItem(STORAGE_KEYS.user),
          ]);
          token = normaliseToken(rawToken);
          user = parseStoredUser(rawUser);
        } catch {
          // Unreadable storage: start signed out.
        }
        if (version === started) store.setState({ token, user, hydrated: true });
        else store.setState((s) => ({ ...s, hydrated: true }));
        return store.getState();
      })();
      return hydrating;
    },
    async signIn(token, user) {
      version += 1;
      loggedOut = false;
      if (remembered && remembered.owner !== null && remembered.owner !== user?.id) remembered = null;
      store.setState({ token, user, hydrated: true });
      await Promise.all([
        storage.setItem(STORAGE_KEYS.token, token),
        storage.setItem(STORAGE_KEYS.user, JSON.stringify(user)),
      ]);
    },
    async setUser(user) {
      version += 1;
      store.setState((s) => ({ ...s, user }));
      await storage.setItem(STORAGE_KEYS.user, JSON.stringify(user));
    },
    async signOut({ explicit = false } = {}) {
      version += 1;
      const user = store.getState().user;
      if (explicit) {
        loggedOut = true;
        remembered = null;
        endedSessionUser = null;
      } else if (store.getState().token) {
        loggedOut = false;
        endedSessionUser = user?.id ?? null;
      }
      store.setState({ token: null, user: null, hydrated: true });
      await Promise.all([storage.removeItem(STORAGE_KEYS.token), storage.removeItem(STORAGE_KEYS.user)]);
    },
    isAuthenticated() {
      return store.getState().token !== null;
    },
    rememberRoute(route) {
      remembered = route && !loggedOut ? { route, owner: endedSessionUser } : null;
    },
    takeRememberedRoute() {
      const r = remembered;
      remembered = null;
      const userId = store.getState().user?.id;
      return r && (r.owner === null || r.owner === userId) ? r.route : null;
    },
  };
}

/** The app's session. */
export const sessionStore = createSessionStore(defaultStorage);

export function useSession(): SessionState;
export function useSession<S>(selector: (s: SessionState) => S): S;
export function useSession<S>(selector?: (s: SessionState) => S) {
  return useStore(sessionStore, selector);
}

export const isAdmin = (user: User | null | undefined) => user?.role === 'Admin';
