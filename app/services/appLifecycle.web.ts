import type { AppLifecycleListeners } from './appLifecycle';

/** The web: TanStack Query's own focus (visibilitychange) and online listeners are right. */
export function wireQueryManagers(): void {}

/**
 * A tab shown again or a network back: reconnect. A hidden tab keeps its
 * connection (browsers do not kill it), so there is no background pause here.
 */
export function subscribeAppLifecycle({ onForeground }: AppLifecycleListeners): () => void {
  if (typeof document === 'undefined' || typeof window === 'undefined') return () => undefined;
  const onVisibility = () => {
    if (document.visibilityState === 'visible') onForeground();
  };
  document.addEventListener('visibilitychange', onVisibility);
  window.addEventListener('online', onForeground);
  return () => {
    document.removeEventListener('visibilitychange', onVisibility);
    window.removeEventListener('online', onForeground);
  };
}
