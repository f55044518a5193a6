import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api } from './client';
import { queryKeys } from './keys';
import type { ScheduledRun, ScheduledTransfer, ScheduledTransferPayload } from './types';

export const scheduledApi = {
  list: () => api.get<ScheduledTransfer[]>('/user/scheduled-transfers'),
  create: (payload: ScheduledTransferPayload) => api.post<ScheduledTransfer>('/user/scheduled-transfers', payload),
  /** Cancels the series (204); its past runs stay. */
  cancel: (id: number) => api.del(`/user/scheduled-transfers/${id}`),
  runs: (id: number) => api.get<ScheduledRun[]>(`/user/scheduled-transfers/${id}/runs`),
};

export function useScheduledTransfers(enabled = true) {
  return useQuery({ queryKey: queryKeys.scheduledTransfers, queryFn: scheduledApi.list, enabled });
}

/** Past runs of one series (null: none asked for). */
export function useScheduledRuns(id: number | null) {
  return useQuery({
    queryKey: queryKeys.scheduledRuns(id ?? 0),
    queryFn: () => scheduledApi.runs(id!),
    enabled: id !== null,
  });
}

function useRefreshSchedules() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: queryKeys.scheduledTransfers });
}

export function useCreateScheduledTransfer() {
  const refresh = useRefreshSchedules();
  return useMutation({ mutationFn: scheduledApi.create, onSuccess: refresh });
}

export function useCancelScheduledTransfer() {
  const refresh = useRefreshSchedules();
  return useMutation({ mutationFn: scheduledApi.cancel, onSuccess: refresh });
}
