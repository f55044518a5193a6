import { useEffect, useRef } from 'react';

import { ApiError } from '../../services/api/client';
import { toast } from '../../state/toast';

/**
 * Shows `message(error)` as an error toast once per failure (a new failure,
 * e.g. after a refetch, toasts again). A 401 is left to the session (it signs out).
 */
export function useErrorToast(error: unknown, failedAt: number, message: (error: unknown) => string): void {
  const shown = useRef<number | null>(null);
  useEffect(() => {
    if (!error || shown.current === failedAt) return;
    shown.current = failedAt;
    if (error instanceof ApiError && error.status === 401) return;
    toast.error(message(error));
    // `message` is a pure formatter; a new one each render must not toast again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [error, failedAt]);
}
