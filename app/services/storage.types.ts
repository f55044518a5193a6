/**
 * Persistent key/value storage. The web keeps everything in localStorage
 * (keys `token`, `user`, `vite-ui-theme`, as the product spec names them);
 * Android/iOS keep the session (token and user: name, email, phone) in the
 * secure store (Keychain / Keystore) and the rest in AsyncStorage. See
 * storage.ts / storage.web.ts.
 */
export interface KeyValueStorage {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
  /**
   * Synchronous read where the platform allows it (the web), so the first
   * render already knows the session and the theme. `undefined` means
   * "not available synchronously", `null` means "not stored".
   */
  getItemSync(key: string): string | null | undefined;
}

export const STORAGE_KEYS = {
  token: 'token',
  user: 'user',
  theme: 'vite-ui-theme',
  /** Android/iOS: the server the app talks to (the sign-in screen's Server field). */
  server: 'server',
} as const;
