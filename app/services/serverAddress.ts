import Constants from 'expo-constants';

import { createStore, useStore } from '../state/store';
import { storage as defaultStorage, STORAGE_KEYS, type KeyValueStorage } from './storage';
import { t } from '../i18n';

/**
 * The server an installed app talks to (Android / iOS). The build brings a
 * default (`EXPO_PUBLIC_API_URL`, else http://localhost:8080, which only an
 * emulator with port forwarding reaches); the sign-in screen's Server field
 * changes it, checked with GET <server>/readyz, and it is remembered. The web
 * build always uses its own origin (the Go binary serves app and API).
 */
export const FALLBACK_SERVER = 'http://localhost:8080';

/**
 * Whether this build may talk plain http: development builds only
 * (`__DEV__`, or APP_VARIANT=development in app.config.ts). A store build
 * accepts https:// addresses alone, as its OS does (no cleartext traffic).
 */
export function httpAllowed(): boolean {
  return (typeof __DEV__ !== 'undefined' && __DEV__) || Constants.expoConfig?.extra?.allowHttp === true;
}

/**
 * 'https://host:port' without a trailing slash, or null when it is not an
 * address this build may use: https, or (allowHttp: development builds) http.
 * An address typed without a scheme takes https, or http where it is allowed.
 */
export function normaliseServerAddress(input: string | null | undefined, allowHttp: boolean = httpAllowed()): string | null {
  let text = (input ?? '').trim();
  if (!text) return null;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) text = `${allowHttp ? 'http' : 'https'}://${text}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if ((url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) || !url.hostname) return null;
  if (url.search || url.hash || url.username || url.password) return null;
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host}${path}`;
}

/** The build's server: EXPO_PUBLIC_API_URL (inlined at build time), else localhost:8080 (development builds). */
export function buildDefaultServer(allowHttp: boolean = httpAllowed()): string {
  return normaliseServerAddress(process.env.EXPO_PUBLIC_API_URL, allowHttp) ?? (allowHttp ? FALLBACK_SERVER : FALLBACK_SERVER.replace(/^http:/, 'https:'));
}

export type ServerCheck = { ok: true } | { ok: false; message: string };

export const SERVER_CHECK_TIMEOUT_MS = 5000;
export const INVALID_SERVER_MESSAGE = 'Enter the server address, e.g. https://bank.example.com';

/** GET <origin>/readyz: 200 means the server and its database are ready. */
export async function checkServer(origin: string, fetchImpl: typeof fetch = fetch, timeoutMs = SERVER_CHECK_TIMEOUT_MS): Promise<ServerCheck> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await fetchImpl(`${origin}/readyz`, { method: 'GET', headers: { Accept: 'application/json' }, signal: controller.signal });
    if (res.ok) return { ok: true };
    let reason = '';
    try {
      const body = JSON.parse(await res.text()) as { error?: unknown };
      if (typeof body?.error === 'string') reason = body.error;
    } catch {
      // not JSON: not a Meridian server, most likely
    }
    return {
      ok: false,
      message: reason ? t('The server at {{origin}} is not ready: {{reason}}', { origin, reason }) : t('No Meridian server answers at {{origin}}', { origin }),
    };
  } catch {
    return { ok: false, message: t('Cannot reach the server at {{origin}}', { origin }) };
  } finally {
    clearTimeout(timer);
  }
}

interface ServerState {
  origin: string;
  hydrated: boolean;
}

export function createServerAddressStore(storage: KeyValueStorage, fallback: () => string = buildDefaultServer) {
  const store = createStore<ServerState>({ origin: fallback(), hydrated: false });
  let hydrating: Promise<void> | null = null;
  return {
    getState: store.getState,
    subscribe: store.subscribe,
    /** The current origin, e.g. 'http://192.168.1.20:8080'. */
    get: () => store.getState().origin,
    /** Reads the remembered address (once). */
    hydrate(): Promise<void> {
      hydrating ??= (async () => {
        let saved: string | null = null;
        try {
          saved = normaliseServerAddress(await storage.getItem(STORAGE_KEYS.server));
        } catch {
          // unreadable: the build's default
        }
        store.setState((s) => ({ origin: saved ?? s.origin, hydrated: true }));
      })();
      return hydrating;
    },
    /** Uses and remembers an address (already normalised and checked). */
    async set(origin: string): Promise<void> {
      store.setState({ origin, hydrated: true });
      await storage.setItem(STORAGE_KEYS.server, origin);
    },
  };
}

/** The app's server address (meaningful on Android / iOS only). */
export const serverAddress = createServerAddressStore(defaultStorage);

export function useServerAddress(): string {
  return useStore(serverAddress, (s) => s.origin);
}
