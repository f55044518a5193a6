import { useEffect, useRef } from 'react';

import { toast } from '../state/toast';

/**
 * Raises `message` as an error toast once per failure of a query
 * (`errorUpdatedAt` changes on every new failure).
 */
export function useErrorToast(isError: boolean, errorUpdatedAt: number, message: string) {
  const shown = useRef<number | null>(null);
  useEffect(() => {
    if (!isError || shown.current === errorUpdatedAt) return;
    shown.current = errorUpdatedAt;
    toast.error(message);
  }, [isError, errorUpdatedAt, message]);
}
