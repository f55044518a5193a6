import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { isAdmin, useSession } from '../../state/session';
import { api } from './client';
import { invalidateMoneyQueries, queryKeys } from './keys';
import type { Account, AccountLookup, AccountPayload, AccountType } from './types';

export const accountsApi = {
  /** The caller's open accounts. */
  mine: () => api.get<Account[]>('/user/accounts'),
  /** Every customer's accounts (Admin). */
  all: () => api.get<Account[]>('/admin/accounts'),
  types: () => api.get<AccountType[]>('/user/account-types'),
  create: (payload: AccountPayload) => api.post<Account>('/user/accounts', payload),
  update: (id: number, payload: AccountPayload) => api.put<Account>(`/user/accounts/${id}`, payload),
  remove: (id: number) => api.del(`/user/accounts/${id}`),
  lookup: (accountNumber: string) =>
    api.get<AccountLookup>('/user/account-details', { account_number: accountNumber }),
};

/** The signed-in user's accounts, or all accounts for an Admin. */
export function useAccounts() {
  const admin = useSession((s) => isAdmin(s.user));
  return useQuery({
    queryKey: queryKeys.accounts(admin ? 'all' : 'mine'),
    queryFn: admin ? accountsApi.all : accountsApi.mine,
  });
}

export function useAccountTypes() {
  return useQuery({ queryKey: queryKeys.accountTypes, queryFn: accountsApi.types, staleTime: 5 * 60_000 });
}

/** Recipient lookup; runs only for 6+ characters (debounce the input before passing it). */
export function useAccountLookup(accountNumber: string) {
  const trimmed = accountNumber.trim();
  return useQuery({
    queryKey: queryKeys.accountLookup(trimmed),
    queryFn: () => accountsApi.lookup(trimmed),
    enabled: trimmed.length >= 6,
    retry: false,
  });
}

function useInvalidateAccounts() {
  const qc = useQueryClient();
  return () => invalidateMoneyQueries(qc);
}

export function useCreateAccount() {
  const invalidate = useInvalidateAccounts();
  return useMutation({ mutationFn: accountsApi.create, onSuccess: invalidate });
}

export function useUpdateAccount() {
  const invalidate = useInvalidateAccounts();
  return useMutation({
    mutationFn: ({ id, payload }: { id: number; payload: AccountPayload }) => accountsApi.update(id, payload),
    onSuccess: invalidate,
  });
}

export function useDeleteAccount() {
  const invalidate = useInvalidateAccounts();
  return useMutation({ mutationFn: accountsApi.remove, onSuccess: invalidate });
}
