import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { useSession } from '../../state/session';
import { api } from './client';
import { queryKeys } from './keys';
import type { AccessToken, AccessTokenPayload, ConnectedApp, ConsentPayload, ConsentScreen, NewAccessToken } from './types';

/** Programs as clients (contract §9): personal access tokens, connected apps and the consent page. */
export const programsApi = {
  tokens: () => api.get<AccessToken[]>('/auth/tokens'),
  createToken: (body: AccessTokenPayload) => api.post<NewAccessToken>('/auth/tokens', body),
  revokeToken: (id: number) => api.del(`/auth/tokens/${id}`),
  apps: () => api.get<ConnectedApp[]>('/auth/connected-apps'),
  disconnect: (id: number) => api.del(`/auth/connected-apps/${id}`),
  consentScreen: (clientId: string, scope: string) => api.get<ConsentScreen>('/oauth/consent', { client_id: clientId, scope }),
  consent: (body: ConsentPayload) => api.post<{ redirect_to: string }>('/oauth/consent', body),
};

/** The caller's personal access tokens, newest first. */
export function useAccessTokens(enabled = true) {
  const token = useSession((s) => s.token);
  return useQuery({ queryKey: queryKeys.accessTokens, queryFn: programsApi.tokens, enabled: enabled && !!token });
}

/** Makes a token; its text is in the answer only. */
export function useCreateAccessToken() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: programsApi.createToken,
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.accessTokens }),
  });
}

/** Revokes a token; the list drops it at once. */
export function useRevokeAccessToken() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: programsApi.revokeToken,
    onSuccess: (_answer, id) => {
      qc.setQueryData<AccessToken[]>(queryKeys.accessTokens, (rows) => rows?.filter((r) => r.id !== id));
      return qc.invalidateQueries({ queryKey: queryKeys.accessTokens });
    },
  });
}

/** The apps the caller connected. */
export function useConnectedApps(enabled = true) {
  const token = useSession((s) => s.token);
  return useQuery({ queryKey: queryKeys.connectedApps, queryFn: programsApi.apps, enabled: enabled && !!token });
}

/** Disconnects an app: every token of it stops at once. */
export function useDisconnectApp() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: programsApi.disconnect,
    onSuccess: (_answer, id) => {
      qc.setQueryData<ConnectedApp[]>(queryKeys.connectedApps, (rows) => rows?.filter((r) => r.id !== id));
      return qc.invalidateQueries({ queryKey: queryKeys.connectedApps });
    },
  });
}

/** What the consent page shows for an app's request. */
export function useConsentScreen(clientId: string, scope: string) {
  const token = useSession((s) => s.token);
  return useQuery({
    queryKey: queryKeys.consent(clientId, scope),
    queryFn: () => programsApi.consentScreen(clientId, scope),
    enabled: !!token && !!clientId && !!scope,
    retry: false,
  });
}

/** Answers the request; the app's redirect comes back. */
export function useConsent() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: programsApi.consent,
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.connectedApps }),
  });
}
