import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { invalidateApprovals } from './approvals';
import { client } from './typed';
import { queryKeys } from './keys';
import type { DailyLimit, DailyLimitPayload } from './types';

export const limitsApi = {
  /** The caller's daily outgoing limit and today's use of it, one row per currency. */
  mine: () => client.GET('/api/user/limits'),
  /** Admin: sets one customer's daily outgoing limit (the same in each currency); null: back to the configured default. */
  setForUser: (userId: number, limit: DailyLimitPayload['daily_transfer_limit']) =>
    client.PUT('/api/admin/users/{id}/limits', { params: { path: { id: userId } }, body: { daily_transfer_limit: limit } }),
};

/** GET /api/user/limits; refreshed by invalidateMoneyQueries after every money change. */
export function useDailyLimits(enabled = true) {
  return useQuery({ queryKey: queryKeys.limits, queryFn: limitsApi.mine, enabled });
}

/** The row of one currency, if the server sent one. */
export function limitFor(rows: DailyLimit[] | undefined, currency: string | undefined): DailyLimit | undefined {
  if (!currency || !Array.isArray(rows)) return undefined;
  return rows.find((r) => r.currency?.toUpperCase() === currency.toUpperCase());
}

/** A raise answers 202 `{approval}` (isPendingApproval): it waits for a second administrator. */
export function useSetDailyLimit() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, limit }: { userId: number; limit: DailyLimitPayload['daily_transfer_limit'] }) => limitsApi.setForUser(userId, limit),
    onSuccess: () => invalidateApprovals(qc),
  });
}
