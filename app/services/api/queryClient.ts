import { QueryClient } from '@tanstack/react-query';

import { ApiError } from './client';

/** Retry only what may pass on a second try: network errors and 5xx, once. */
function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status > 0 && error.status < 500) return false;
  return failureCount < 1;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // Focus = the app back in front (Android/iOS: AppState, see appLifecycle.ts; web: the tab shown):
      // queries older than staleTime refetch then, and when the network comes back.
      queries: { retry: shouldRetry, staleTime: 15_000, refetchOnWindowFocus: true, refetchOnReconnect: true },
      mutations: { retry: false },
    },
  });
}

/** The app's one query cache; cleared on sign-out (see App.tsx). */
export const queryClient = createQueryClient();
