import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';

/**
 * Pull to refresh (Android / iOS): pulling a page or a list down refetches
 * every query on screen (its balances, rows, counts) and shows the spinner
 * until they are back. The shell's scroll view and the self-scrolling lists
 * (VirtualRows) use it, so every list has it.
 */
export function usePullToRefresh(): { refreshing: boolean; onRefresh: () => void } {
  const queryClient = useQueryClient();
  const [refreshing, setRefreshing] = useState(false);
  const onRefresh = useCallback(() => {
    setRefreshing(true);
    void queryClient.refetchQueries({ type: 'active' }).finally(() => setRefreshing(false));
  }, [queryClient]);
  return { refreshing, onRefresh };
}
