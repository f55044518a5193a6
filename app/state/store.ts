import { useSyncExternalStore } from 'react';

/** A minimal observable store (no dependency), read in components with useStore. */
export interface Store<T> {
  getState(): T;
  setState(next: T | ((prev: T) => T)): void;
  subscribe(listener: () => void): () => void;
}

export function createStore<T>(initial: T): Store<T> {
  let state = initial;
  const listeners = new Set<() => void>();
  return {
    getState: () => state,
    setState(next) {
      const value = typeof next === 'function' ? (next as (prev: T) => T)(state) : next;
      if (Object.is(value, state)) return;
      state = value;
      listeners.forEach((l) => l());
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

export function useStore<T, S = T>(store: Pick<Store<T>, "getState" | "subscribe">, selector?: (state: T) => S): S {
  const get = () => (selector ? selector(store.getState()) : (store.getState() as unknown as S));
  return useSyncExternalStore(store.subscribe, get, get);
}
