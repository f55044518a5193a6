import { useEffect, useRef } from 'react';

import { ApiError } from '../services/api/client';
import { toast } from '../state/toast';
import { TWO_FACTOR_REQUIRED_CODE } from '../state/twoFactorGate';

/**
 * Raises an error toast once per failure of a query: pass the query's
 * `error` (null or undefined while there is none) and `errorUpdatedAt`,
 * which changes on every new failure, so a failed refetch toasts again.
 *
 * `message` is the text, or a function of the error (e.g. the server's
 * message, else a fallback). A 401 raises nothing: the session signs out and
 * the login screen says the rest. Nor does a 403 `two_factor_required`: the
 * shell sends the administrator to Security, which explains it.
 */
export function useErrorToast(
  error: unknown,
  errorUpdatedAt: number,
  message: string | ((error: unknown) => string),
): void {
  const shown = useRef<number | null>(null);
  const latest = useRef(message);
  latest.current = message;
  useEffect(() => {
    if (!error || shown.current === errorUpdatedAt) return;
    shown.current = errorUpdatedAt;
    if (error instanceof ApiError && error.status === 401) return;
    if (error instanceof ApiError && error.code === TWO_FACTOR_REQUIRED_CODE) return;
    const m = latest.current;
    toast.error(typeof m === 'function' ? m(error) : m);
  }, [error, errorUpdatedAt]);
}
