import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { client } from './typed';
import { queryKeys } from './keys';
import type { Payee, PayeePayload } from './types';

export const payeesApi = {
  list: () => client.GET('/api/user/payees'),
  /** 404 unknown account, 409 already saved, 422 one's own account: the server's sentence says which. */
  create: (payload: PayeePayload) => client.POST('/api/user/payees', { body: payload }),
  remove: (id: number) => client.DELETE('/api/user/payees/{id}', { params: { path: { id } } }),
};

/** The caller's saved payees. */
export function usePayees(enabled = true) {
  return useQuery({ queryKey: queryKeys.payees, queryFn: payeesApi.list, enabled });
}

export function useCreatePayee() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: payeesApi.create,
    onSuccess: (payee) => {
      qc.setQueryData<Payee[]>(queryKeys.payees, (rows) => (rows && payee ? [payee, ...rows.filter((r) => r.id !== payee.id)] : rows));
      return qc.invalidateQueries({ queryKey: queryKeys.payees });
    },
  });
}

export function useDeletePayee() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: payeesApi.remove,
    onSuccess: (_answer, id) => {
      qc.setQueryData<Payee[]>(queryKeys.payees, (rows) => rows?.filter((r) => r.id !== id));
      return qc.invalidateQueries({ queryKey: queryKeys.payees });
    },
  });
}
