import type { KeyValueStorage } from '../services/storage.types';

/** In-memory storage for tests; `sync: true` behaves like the web's localStorage. */
export function memoryStorage(initial: Record<string, string> = {}, { sync = false } = {}) {
  const data = new Map(Object.entries(initial));
  const storage: KeyValueStorage & { data: Map<string, string> } = {
    data,
    getItem: jest.fn(async (k: string) => (data.has(k) ? data.get(k)! : null)),
    setItem: jest.fn(async (k: string, v: string) => {
      data.set(k, v);
    }),
    removeItem: jest.fn(async (k: string) => {
      data.delete(k);
    }),
    getItemSync: (k: string) => (sync ? (data.has(k) ? data.get(k)! : null) : undefined),
  };
  return storage;
}
