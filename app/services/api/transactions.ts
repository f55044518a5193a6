import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { useSession } from '../../state/session';
import { uuid } from '../../utils/uuid';
import { client } from './typed';
import { invalidateApprovals } from './approvals';
import { invalidateMoneyQueries, queryKeys } from './keys';
import type { HistoryQuery, Role, TransferPayload } from './types';

export const transactionsApi = {
  history: (role: Role, query: HistoryQuery = {}) =>
    role === 'Admin'
      ? client.GET('/api/admin/transactions/history', { params: { query } })
      : client.GET('/api/user/transactions/history', { params: { query } }),
  transfer: (payload: TransferPayload, idempotencyKey?: string) =>
    client.POST('/api/user/money-transfer', { body: payload, headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : undefined }),
};

/** A fresh Idempotency-Key: a random v4 UUID (expo-crypto on Android/iOS; see utils/uuid). */
export function newIdempotencyKey(): string {
  return uuid();
}

/** Transaction history: the admin endpoint for Admin, the user endpoint otherwise. */
export function useTransactionHistory(query: HistoryQuery = {}) {
  const role: Role = useSession((s) => s.user?.role ?? 'User');
  return useQuery({
    queryKey: queryKeys.transactions(role, query),
    queryFn: () => transactionsApi.history(role, query),
  });
}

/** Paged history: `limit` per page, `before` = the previous page's `next_cursor`. */
export function useTransactionHistoryPages(query: Omit<HistoryQuery, 'before'> = {}) {
  const role: Role = useSession((s) => s.user?.role ?? 'User');
  return useInfiniteQuery({
    queryKey: queryKeys.transactionPages(role, query),
    queryFn: ({ pageParam }) => transactionsApi.history(role, { ...query, before: pageParam ?? undefined }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last?.next_cursor ?? null,
  });
}

export function useTransfer() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ payload, idempotencyKey }: { payload: TransferPayload; idempotencyKey?: string }) =>
      transactionsApi.transfer(payload, idempotencyKey),
    onSuccess: () => invalidateMoneyQueries(qc),
  });
}

/** Admin: reverses a posted transaction (a reason is required); 201 the reversal, or 202 `{approval}` at or over the threshold. */
export function useReverseTransaction() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, reason }: { id: number; reason: string }) =>
      client.POST('/api/admin/transactions/{id}/reverse', { params: { path: { id } }, body: { reason } }),
    // A refusal (409 already_reversed) also means the rows on screen are stale.
    onSettled: () => Promise.all([invalidateMoneyQueries(qc), invalidateApprovals(qc)]),
  });
}
