import { createSessionStore, parseStoredUser } from '../state/session';
import type { User } from '../services/api/types';
import { memoryStorage } from './memoryStorage';

const alice: User = {
  id: 7,
  full_name: 'Alice Doe',
  email: 'alice@meridian.test',
  phone_number: '+15550100',
  role: 'User',
  is_active: true,
  created_at: '2026-01-02T03:04:05Z',
};

describe('parseStoredUser', () => {
  it('reads a stored JSON user', () => {
    expect(parseStoredUser(JSON.stringify(alice))).toEqual(alice);
  });

  it('treats the literal text "undefined" as no user', () => {
    expect(parseStoredUser('undefined')).toBeNull();
  });

  it('treats missing, empty, broken or non-object values as no user', () => {
    expect(parseStoredUser(null)).toBeNull();
    expect(parseStoredUser(undefined)).toBeNull();
    expect(parseStoredUser('')).toBeNull();
    expect(parseStoredUser('{not json')).toBeNull();
    expect(parseStoredUser('null')).toBeNull();
    expect(parseStoredUser('42')).toBeNull();
    expect(parseStoredUser('[1,2]')).toBeNull();
  });
});

describe('session store', () => {
  it('loads token and user synchronously where storage allows it (the web)', () => {
    const storage = memoryStorage({ token: 'abc', user: JSON.stringify(alice) }, { sync: true });
    const store = createSessionStore(storage);
    expect(store.getState()).toEqual({ token: 'abc', user: alice, hydrated: true });
    expect(store.isAuthenticated()).toBe(true);
  });

  it('keeps the token but no user when the stored user is the text "undefined"', () => {
    const store = createSessionStore(memoryStorage({ token: 'abc', user: 'undefined' }, { sync: true }));
    expect(store.getState().token).toBe('abc');
    expect(store.getState().user).toBeNull();
    // isAuthenticated is "a token is stored".
    expect(store.isAuthenticated()).toBe(true);
  });

  it('is signed out when nothing is stored', () => {
    const store = createSessionStore(memoryStorage({}, { sync: true }));
    expect(store.getState()).toEqual({ token: null, user: null, hydrated: true });
    expect(store.isAuthenticated()).toBe(false);
  });

  it('hydrates asynchronously on Android/iOS', async () => {
    const store = createSessionStore(memoryStorage({ token: 'native-token', user: JSON.stringify(alice) }));
    expect(store.getState()).toEqual({ token: null, user: null, hydrated: false });
    await store.hydrate();
    expect(store.getState()).toEqual({ token: 'native-token', user: alice, hydrated: true });
  });

  it('signIn stores token and user under the keys token and user', async () => {
    const storage = memoryStorage({}, { sync: true });
    const store = createSessionStore(storage);
    const seen: Array<string | null> = [];
    store.subscribe(() => seen.push(store.getState().token));
    await store.signIn('t1', alice);
    expect(storage.data.get('token')).toBe('t1');
    expect(JSON.parse(storage.data.get('user')!)).toEqual(alice);
    expect(store.getState().user).toEqual(alice);
    expect(seen).toEqual(['t1']);
  });

  it('signOut removes token and user', async () => {
    const storage = memoryStorage({ token: 't1', user: JSON.stringify(alice), 'vite-ui-theme': 'dark' }, { sync: true });
    const store = createSessionStore(storage);
    await store.signOut();
    expect(store.getState()).toEqual({ token: null, user: null, hydrated: true });
    expect(storage.data.has('token')).toBe(false);
    expect(storage.data.has('user')).toBe(false);
    // The theme choice is not part of the session.
    expect(storage.data.get('vite-ui-theme')).toBe('dark');
  });

  it('a slow hydrate never overwrites a newer sign-in', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const storage = memoryStorage({ token: 'old', user: JSON.stringify(alice) });
    storage.getItem = jest.fn(async (k: string) => {
      await gate;
      return storage.data.get(k) ?? null;
    });
    const store = createSessionStore(storage);
    const hydrating = store.hydrate();
    await store.signIn('new', { ...alice, id: 8 });
    release();
    await hydrating;
    expect(store.getState().token).toBe('new');
    expect(store.getState().user?.id).toBe(8);
    expect(store.getState().hydrated).toBe(true);
  });
});

describe('web storage', () => {
  it('uses localStorage with the keys token, user and vite-ui-theme', async () => {
    const backing = new Map<string, string>();
    const fakeLocalStorage = {
      getItem: (k: string) => (backing.has(k) ? backing.get(k)! : null),
      setItem: (k: string, v: string) => void backing.set(k, String(v)),
      removeItem: (k: string) => void backing.delete(k),
    };
    const g = globalThis as unknown as { window?: unknown };
    const previous = g.window;
    g.window = { localStorage: fakeLocalStorage };
    try {
      // The .web file is what Metro picks for the web build.
      const { storage } = require('../services/storage.web') as typeof import('../services/storage.web');
      backing.set('token', 'web-token');
      backing.set('user', 'undefined');
      const store = createSessionStore(storage);
      expect(store.getState()).toEqual({ token: 'web-token', user: null, hydrated: true });
      await store.signIn('t2', alice);
      expect(backing.get('token')).toBe('t2');
      expect(JSON.parse(backing.get('user')!)).toEqual(alice);
      await store.signOut();
      expect(backing.size).toBe(0);
    } finally {
      g.window = previous;
    }
  });
});
