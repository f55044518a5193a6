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
      queries: { retry: shouldRetry, staleTime: 15_000, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}

/** The app's one query cache; cleared on sign-out (see App.tsx). */
export const queryClient = createQueryClient();
