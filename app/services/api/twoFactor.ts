import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { useSession } from '../../state/session';
import { twoFactorGate } from '../../state/twoFactorGate';
import { completeSignIn } from './auth';
import { client } from './typed';
import { queryKeys } from './keys';
import type {
  LoginResponse,
  TwoFactorDisablePayload,
  VerifyPayload,
} from './types';

/** Two-factor sign-in (TOTP, RFC 6238), contract §6. */
export const twoFactorApi = {
  status: () => client.GET('/api/auth/2fa'),
  setup: () => client.POST('/api/auth/2fa/setup'),
  enable: (code: string) => client.POST('/api/auth/2fa/enable', { body: { code } }),
  disable: (payload: TwoFactorDisablePayload) => client.POST('/api/auth/2fa/disable', { body: payload }),
  /** The second sign-in step: answers like a sign-in. */
  verify: (payload: VerifyPayload) => client.POST('/api/auth/2fa/verify', { body: payload }),
};

/** Whether the signed-in user's two-factor sign-in is on, and how many backup codes are left. */
export function useTwoFactorStatus() {
  const token = useSession((s) => s.token);
  return useQuery({ queryKey: queryKeys.twoFactor, queryFn: twoFactorApi.status, enabled: !!token });
}

/** A new secret (not on yet). */
export function useTwoFactorSetup() {
  return useMutation({ mutationFn: twoFactorApi.setup });
}

/** Turns two-factor sign-in on with a current code; answers the backup codes (shown once). */
export function useEnableTwoFactor() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: twoFactorApi.enable,
    onSuccess: () => {
      // An administrator held back by require_2fa_for_admins may go on now.
      twoFactorGate.clear();
      return qc.invalidateQueries({ queryKey: queryKeys.twoFactor });
    },
  });
}

export function useDisableTwoFactor() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: twoFactorApi.disable,
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.twoFactor }),
  });
}

/** The second sign-in step: a code (or a backup code) for the challenge; stores the session. */
export function useVerifyTwoFactor(callbacks: { onSignedIn?: (data: LoginResponse) => void } = {}) {
  return useMutation({
    mutationFn: twoFactorApi.verify,
    onSuccess: (data) => completeSignIn(data, callbacks.onSignedIn),
  });
}
