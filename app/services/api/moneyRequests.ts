import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { useSession } from '../../state/session';
import { api } from './client';
import { invalidateMoneyQueries, queryKeys } from './keys';
import type { DataResponse, MoneyRequest, MoneyRequestPayload, Role } from './types';

/** The list as an array; anything else (a broken answer) is no requests. */
function asList(list: unknown): MoneyRequest[] {
  return Array.isArray(list) ? (list as MoneyRequest[]) : [];
}

export const moneyRequestsApi = {
  /** The caller's requests, both directions: a bare array (contract §2). */
  mine: async () => asList(await api.get<MoneyRequest[]>('/user/transactions/money-request')),
  /** Every customer's requests (Admin): `{data: [...]}`. */
  all: async () => asList((await api.get<DataResponse<MoneyRequest[]>>('/admin/transactions/money-request'))?.data),
  list: (role: Role) => (role === 'Admin' ? moneyRequestsApi.all() : moneyRequestsApi.mine()),
  create: (payload: MoneyRequestPayload) => api.post<DataResponse<MoneyRequest>>('/user/money-request', payload),
  accept: (id: number) => api.put<DataResponse<MoneyRequest>>(`/user/accept-money-request/${id}`),
  decline: (id: number) => api.put<DataResponse<MoneyRequest>>(`/user/decline-money-request/${id}`),
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
