import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { useSession } from '../../state/session';
import { api } from './client';
import { invalidateMoneyQueries, queryKeys } from './keys';
import type { DataResponse, MoneyRequest, MoneyRequestPayload, Role } from './types';

/** The list arrives as `{data: [...]}` (or a bare array from older servers). */
function unwrap(res: DataResponse<MoneyRequest[]> | MoneyRequest[]): MoneyRequest[] {
  if (Array.isArray(res)) return res;
  return Array.isArray(res?.data) ? res.data : [];
}

export const moneyRequestsApi = {
  list: async (role: Role) =>
    unwrap(
      await api.get<DataResponse<MoneyRequest[]> | MoneyRequest[]>(
        role === 'Admin' ? '/admin/transactions/money-request' : '/user/transactions/money-request',
      ),
    ),
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
