import { lazy, Suspense, type ComponentType } from 'react';

import { Loading } from '../components/Loading';

/**
 * A screen loaded on first use. On the web each one becomes its own chunk,
 * so the initial JavaScript stays small (charts and admin screens load later).
 */
export function lazyScreen<P extends object>(load: () => Promise<{ default: ComponentType<P> }>): ComponentType<P> {
  const Lazy = lazy(load);
  function LazyScreen(props: P) {
    return (
      <Suspense fallback={<Loading testID="screen-loading" />}>
        <Lazy {...props} />
      </Suspense>
    );
  }
  return LazyScreen;
}
