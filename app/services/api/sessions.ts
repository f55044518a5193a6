import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { useSession } from '../../state/session';
import { client } from './typed';
import { queryKeys } from './keys';
import type { SignedInSession } from './types';

/** The caller's signed-in sessions (contract §6 "Sessions"). */
export const sessionsApi = {
  list: () => client.GET('/api/auth/sessions'),
  end: (id: number) => client.DELETE('/api/auth/sessions/{id}', { params: { path: { id } } }),
  endOthers: () => client.POST('/api/auth/sessions/revoke-others'),
};

/** Newest first; `current` marks this device's. `enabled: false` while the server would refuse (the 2FA gate). */
export function useSessions(enabled = true) {
  const token = useSession((s) => s.token);
  return useQuery({ queryKey: queryKeys.sessions, queryFn: sessionsApi.list, enabled: enabled && !!token });
}

/** Signs one session out; the list drops it at once, then refreshes. */
export function useEndSession() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: sessionsApi.end,
    onSuccess: (_answer, id) => {
      qc.setQueryData<SignedInSession[]>(queryKeys.sessions, (rows) => rows?.filter((r) => r.id !== id));
      return qc.invalidateQueries({ queryKey: queryKeys.sessions });
    },
  });
}

/** Signs every other session out; only this device's stays in the list. */
export function useEndOtherSessions() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: sessionsApi.endOthers,
    onSuccess: () => {
      qc.setQueryData<SignedInSession[]>(queryKeys.sessions, (rows) => rows?.filter((r) => r.current));
      return qc.invalidateQueries({ queryKey: queryKeys.sessions });
    },
  });
}
