import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';

import { client } from './typed';
import { invalidateMoneyQueries, queryKeys } from './keys';
import type { ApprovalPending, ApprovalStatus } from './types';

/** Four eyes (contract §8): what one administrator asked and a second decides. */
export const approvalsApi = {
  list: (status?: ApprovalStatus) => client.GET('/api/admin/approvals', { params: { query: { status } } }),
  approve: (id: number) => client.POST('/api/admin/approvals/{id}/approve', { params: { path: { id } } }),
  reject: (id: number, reason: string) => client.POST('/api/admin/approvals/{id}/reject', { params: { path: { id } }, body: { reason } }),
};

/** How often the sidebar's pending count is fetched again (and on focus). */
export const PENDING_REFETCH_MS = 20_000;

/** Whether an answer is a 202 `{approval}`: the action did not run, it waits for a second administrator. */
export function isPendingApproval(answer: unknown): answer is ApprovalPending {
  return answer !== null && typeof answer === 'object' && 'approval' in answer && typeof (answer as { approval: unknown }).approval === 'object';
}

/** Refreshes every approvals list (the sidebar's count among them). */
export function invalidateApprovals(qc: QueryClient): Promise<void> {
  return qc.invalidateQueries({ queryKey: queryKeys.approvalLists });
}

export function useApprovals(status: ApprovalStatus | undefined) {
  return useQuery({ queryKey: queryKeys.approvals(status), queryFn: () => approvalsApi.list(status) });
}

/** The number of pending approvals (admins only): every 20 s and when the app comes back to the front. */
export function usePendingApprovalsCount(enabled: boolean): number | undefined {
  const query = useQuery({
    queryKey: queryKeys.approvals('pending'),
    queryFn: () => approvalsApi.list('pending'),
    enabled,
    refetchInterval: PENDING_REFETCH_MS,
    refetchOnWindowFocus: 'always',
  });
  return enabled && Array.isArray(query.data) ? query.data.length : undefined;
}

/** Approve or reject; an approval runs its action, so balances and history refresh too. */
export function useDecideApproval() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, decision, reason }: { id: number; decision: 'approve' | 'reject'; reason?: string }) =>
      decision === 'approve' ? approvalsApi.approve(id) : approvalsApi.reject(id, reason ?? ''),
    onSettled: () => Promise.all([invalidateApprovals(qc), invalidateMoneyQueries(qc)]),
  });
}
