import type { KeyValueStorage } from './storage.types';

export { STORAGE_KEYS } from './storage.types';
export type { KeyValueStorage } from './storage.types';

function local(): Storage | null {
  try {
    return typeof window !== 'undefined' && window.localStorage ? window.localStorage : null;
  } catch {
    // Access can throw (privacy mode, sandboxed iframes).
    return null;
  }
}

/** Web: everything in window.localStorage. */
export const storage: KeyValueStorage = {
  async getItem(key) {
    return local()?.getItem(key) ?? null;
  },
  async setItem(key, value) {
    local()?.setItem(key, value);
  },
  async removeItem(key) {
    local()?.removeItem(key);
  },
  getItemSync(key) {
    const ls = local();
    return ls ? ls.getItem(key) : null;
  },
};
