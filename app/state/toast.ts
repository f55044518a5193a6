import { localId } from '../utils/format';
import { createStore, useStore } from './store';

export type ToastType = 'success' | 'error' | 'blank' | 'loading';

export interface Toast {
  id: string;
  type: ToastType;
  message: string;
  createdAt: number;
  /** ms; Infinity stays until dismissed. */
  duration: number;
}

/** Spec §4/§9: success 2 s, error and plain 4 s, loading until dismissed, at most 20 at once. */
export const TOAST_DURATIONS: Record<ToastType, number> = {
  success: 2000,
  error: 4000,
  blank: 4000,
  loading: Infinity,
};
export const TOAST_LIMIT = 20;

export interface ToastOptions {
  id?: string;
  duration?: number;
}

const store = createStore<Toast[]>([]);
const timers = new Map<string, ReturnType<typeof setTimeout>>();

function clearTimer(id: string) {
  const t = timers.get(id);
  if (t !== undefined) {
    clearTimeout(t);
    timers.delete(id);
  }
}

function show(type: ToastType, message: string, options: ToastOptions = {}): string {
  const id = options.id ?? localId('toast');
  const duration = options.duration ?? TOAST_DURATIONS[type];
  const next: Toast = { id, type, message, createdAt: Date.now(), duration };
  clearTimer(id);
  store.setState((list) => {
    const without = list.filter((t) => t.id !== id);
    // Newest first; beyond the limit the oldest go.
    const kept = [next, ...without].slice(0, TOAST_LIMIT);
    for (const dropped of list) if (!kept.includes(dropped)) clearTimer(dropped.id);
    return kept;
  });
  if (Number.isFinite(duration)) {
    timers.set(
      id,
      setTimeout(() => dismiss(id), duration),
    );
  }
  return id;
}

function dismiss(id?: string) {
  if (id === undefined) {
    timers.forEach((t) => clearTimeout(t));
    timers.clear();
    store.setState([]);
    return;
  }
  clearTimer(id);
  store.setState((list) => (list.some((t) => t.id === id) ? list.filter((t) => t.id !== id) : list));
}

type ToastFn = ((message: string, options?: ToastOptions) => string) & {
  success: (message: string, options?: ToastOptions) => string;
  error: (message: string, options?: ToastOptions) => string;
  loading: (message: string, options?: ToastOptions) => string;
  dismiss: (id?: string) => void;
};

/**
 * Imperative toasts, callable from anywhere (components, hooks, services):
 * `toast.success('Login successful!')`, `const id = toast.loading('Saving...'); toast.dismiss(id)`.
 * Passing the id of a shown toast replaces it (e.g. loading -> success).
 */
export const toast: ToastFn = Object.assign((message: string, options?: ToastOptions) => show('blank', message, options), {
  success: (message: string, options?: ToastOptions) => show('success', message, options),
  error: (message: string, options?: ToastOptions) => show('error', message, options),
  loading: (message: string, options?: ToastOptions) => show('loading', message, options),
  dismiss,
});

export const toastStore = { getState: store.getState, subscribe: store.subscribe };

export function useToasts(): Toast[] {
  return useStore(toastStore);
}
