import { useMutation, useQueryClient } from '@tanstack/react-query';

import { client } from './typed';
import { invalidateApprovals } from './approvals';
import { invalidateMoneyQueries } from './keys';
import type { FundsPayload } from './types';

/** Money in or out at the bank: only an administrator (contract §6 "Where money comes from"). */
export type FundsKind = 'deposit' | 'withdraw';

export const fundsApi = {
  /** A CREDIT (`Deposit` when no description) or DEBIT (`Withdrawal`) on any customer's open account. */
  move: (kind: FundsKind, accountNumber: string, payload: FundsPayload) =>
    kind === 'deposit'
      ? client.POST('/api/admin/accounts/{account_number}/deposit', { params: { path: { account_number: accountNumber } }, body: payload })
      : client.POST('/api/admin/accounts/{account_number}/withdraw', { params: { path: { account_number: accountNumber } }, body: payload }),
};

/**
 * Deposits into or withdraws from an account; balances, history and
 * dashboards refresh. At or over the approval threshold the server answers
 * 202 `{approval}` instead (isPendingApproval): nothing moved yet.
 */
export function useAccountFunds() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ kind, accountNumber, payload }: { kind: FundsKind; accountNumber: string; payload: FundsPayload }) =>
      fundsApi.move(kind, accountNumber, payload),
    onSuccess: () => Promise.all([invalidateMoneyQueries(qc), invalidateApprovals(qc)]),
  });
}
