import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from './client';
import { invalidateMoneyQueries } from './keys';
import type { FundsPayload, Transaction } from './types';

/** Money in or out at the bank: only an administrator (contract §6 "Where money comes from"). */
export type FundsKind = 'deposit' | 'withdraw';

export const fundsApi = {
  /** A CREDIT (`Deposit` when no description) or DEBIT (`Withdrawal`) on any customer's open account. */
  move: (kind: FundsKind, accountNumber: string, payload: FundsPayload) =>
    api.post<Transaction>(`/admin/accounts/${encodeURIComponent(accountNumber)}/${kind}`, payload),
};

/** Deposits into or withdraws from an account; balances, history and dashboards refresh. */
export function useAccountFunds() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ kind, accountNumber, payload }: { kind: FundsKind; accountNumber: string; payload: FundsPayload }) =>
      fundsApi.move(kind, accountNumber, payload),
    onSuccess: () => invalidateMoneyQueries(qc),
  });
}
