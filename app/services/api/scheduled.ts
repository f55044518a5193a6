import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { client } from './typed';
import { queryKeys } from './keys';
import type { ScheduledTransferPayload } from './types';

export const scheduledApi = {
  list: () => client.GET('/api/user/scheduled-transfers'),
  create: (payload: ScheduledTransferPayload) => client.POST('/api/user/scheduled-transfers', { body: payload }),
  /** Cancels the series (204); its past runs stay. */
  cancel: (id: number) => client.DELETE('/api/user/scheduled-transfers/{id}', { params: { path: { id } } }),
  runs: (id: number) => client.GET('/api/user/scheduled-transfers/{id}/runs', { params: { path: { id } } }),
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
