import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { useSession } from '../../state/session';
import { client } from './typed';
import { invalidateMoneyQueries, queryKeys } from './keys';
import type { MoneyRequest, MoneyRequestPayload, Role } from './types';

/** The list as an array; anything else (a broken answer) is no requests. */
function asList(list: unknown): MoneyRequest[] {
  return Array.isArray(list) ? (list as MoneyRequest[]) : [];
}

export const moneyRequestsApi = {
  /** The caller's requests, both directions: a bare array (contract §2). */
  mine: async () => asList(await client.GET('/api/user/transactions/money-request')),
  /** Every customer's requests (Admin): `{data: [...]}`. */
  all: async () => asList((await client.GET('/api/admin/transactions/money-request'))?.data),
  list: (role: Role) => (role === 'Admin' ? moneyRequestsApi.all() : moneyRequestsApi.mine()),
  create: (payload: MoneyRequestPayload) => client.POST('/api/user/money-request', { body: payload }),
  accept: (id: number) => client.PUT('/api/user/accept-money-request/{id}', { params: { path: { id } } }),
  decline: (id: number) => client.PUT('/api/user/decline-money-request/{id}', { params: { path: { id } } }),
};

export function useMoneyRequests() {
  const role: Role = useSession((s) => s.user?.role ?? 'User');
  return useQuery({ queryKey: queryKeys.moneyRequests(role), queryFn: () => moneyRequestsApi.list(role) });
}

function useInvalidateMoney() {
  const qc = useQueryClient();
  return () => invalidateMoneyQueries(qc);
}

export function useCreateMoneyRequest() {
  const invalidate = useInvalidateMoney();
  return useMutation({ mutationFn: moneyRequestsApi.create, onSuccess: invalidate });
}

export function useAcceptMoneyRequest() {
  const invalidate = useInvalidateMoney();
  return useMutation({ mutationFn: moneyRequestsApi.accept, onSuccess: invalidate });
}

export function useDeclineMoneyRequest() {
  const invalidate = useInvalidateMoney();
  return useMutation({ mutationFn: moneyRequestsApi.decline, onSuccess: invalidate });
}
