import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { isAdmin, useSession } from '../../state/session';
import { client } from './typed';
import { invalidateMoneyQueries, queryKeys } from './keys';
import type { AccountPayload } from './types';

export const accountsApi = {
  /** The caller's open accounts. */
  mine: () => client.GET('/api/user/accounts'),
  /** Every customer's accounts (Admin). */
  all: () => client.GET('/api/admin/accounts'),
  types: () => client.GET('/api/user/account-types'),
  create: (payload: AccountPayload) => client.POST('/api/user/accounts', { body: payload }),
  update: (id: number, payload: AccountPayload) => client.PUT('/api/user/accounts/{id}', { params: { path: { id } }, body: payload }),
  remove: (id: number) => client.DELETE('/api/user/accounts/{id}', { params: { path: { id } } }),
  interest: (id: number) => client.GET('/api/user/accounts/{id}/interest', { params: { path: { id } } }),
  adminTypes: () => client.GET('/api/admin/account-types'),
  setInterestRate: (id: number, rate: number) => client.PUT('/api/admin/account-types/{id}', { params: { path: { id } }, body: { interest_rate: rate } }),
  lookup: (accountNumber: string) =>
    client.GET('/api/user/account-details', { params: { query: { account_number: accountNumber } } }),
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

/** GET /api/user/accounts/{id}/interest: the rate, what accrued and is not paid yet, the last payment. */
export function useAccountInterest(id: number, enabled: boolean) {
  return useQuery({ queryKey: queryKeys.accountInterest(id), queryFn: () => accountsApi.interest(id), enabled });
}

/** Admin: the account types with their interest rates. */
export function useAdminAccountTypes() {
  return useQuery({ queryKey: queryKeys.adminAccountTypes, queryFn: accountsApi.adminTypes });
}

/** Admin: an account type's interest rate (percent a year, up to 4 decimals). */
export function useSetInterestRate() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, rate }: { id: number; rate: number }) => accountsApi.setInterestRate(id, rate),
    onSuccess: () => Promise.all([qc.invalidateQueries({ queryKey: queryKeys.adminAccountTypes }), qc.invalidateQueries({ queryKey: queryKeys.accountTypes })]),
  });
}
