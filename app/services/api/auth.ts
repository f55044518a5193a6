import { useMutation, useQuery } from '@tanstack/react-query';

import { sessionStore, useSession } from '../../state/session';
import { unregisterPush } from '../push';
import { client } from './typed';
import { queryKeys } from './keys';
import type {
  LoginAnswer,
  LoginPayload,
  LoginResponse,
  TwoFactorChallenge,
  PasswordResetPayload,
  RegisterPayload,
} from './types';

export const authApi = {
  login: (payload: LoginPayload) => client.POST('/api/auth/login', { body: payload }),
  register: (payload: RegisterPayload) => client.POST('/api/auth/register', { body: payload }),
  logout: () => client.POST('/api/auth/logout'),
  me: () => client.GET('/api/auth/me'),
  passwordReset: (payload: PasswordResetPayload) => client.POST('/api/user/password-reset', { body: payload }),
};

/** Whether a sign-in answer asks for the second step (two-factor sign-in is on). */
export function isTwoFactorChallenge(answer: LoginAnswer | undefined): answer is TwoFactorChallenge {
  return !!answer && (answer as TwoFactorChallenge).two_factor_required === true && typeof (answer as TwoFactorChallenge).challenge === 'string';
}

export interface SignInCallbacks {
  onSignedIn?: (data: LoginResponse) => void;
  /** The password was right and two-factor sign-in is on: the code step comes next. */
  onChallenge?: (challenge: TwoFactorChallenge) => void;
  onError?: (error: Error) => void;
}

/**
 * Stores a sign-in's session (token + user). `onSignedIn` runs just before
 * (storing it makes the auth screen navigate away, so callbacks passed to
 * mutate() might not run any more).
 */
export async function completeSignIn(data: LoginResponse, onSignedIn?: (data: LoginResponse) => void): Promise<void> {
  onSignedIn?.(data);
  await sessionStore.signIn(data.token, data.user);
}

/**
 * Signs in and stores the session, or, when two-factor sign-in is on, hands
 * the challenge to `onChallenge` (no token yet: `useVerifyTwoFactor` finishes).
 */
export function useLogin(callbacks: SignInCallbacks = {}) {
  return useMutation({
    mutationFn: authApi.login,
    onSuccess: async (data) => {
      if (isTwoFactorChallenge(data)) {
        callbacks.onChallenge?.(data);
        return;
      }
      await completeSignIn(data, callbacks.onSignedIn);
    },
    onError: (error) => callbacks.onError?.(error),
  });
}

export function useRegister() {
  return useMutation({ mutationFn: authApi.register });
}

export function usePasswordReset() {
  return useMutation({ mutationFn: authApi.passwordReset });
}

/** The signed-in user from the server; used when a token is stored without its user. */
export function useMe(enabled = true) {
  const token = useSession((s) => s.token);
  return useQuery({ queryKey: queryKeys.me, queryFn: authApi.me, enabled: enabled && !!token });
}

/**
 * Signs out: revokes the token on the server (best effort, never blocks)
 * and clears the local session. The query cache is cleared by App.tsx when
 * the token goes away. `explicit`: the user chose Logout (no page is
 * remembered for the next sign-in).
 */
export async function signOut(options: { explicit?: boolean } = {}): Promise<void> {
  const hadToken = sessionStore.getState().token !== null;
  // This phone stops receiving pushes first, while the session can still say so.
  if (hadToken) await unregisterPush();
  const revoke = hadToken ? authApi.logout().catch(() => undefined) : Promise.resolve();
  await sessionStore.signOut(options);
  await revoke;
}
