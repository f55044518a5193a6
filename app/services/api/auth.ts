import { useMutation, useQuery } from '@tanstack/react-query';

import { sessionStore, useSession } from '../../state/session';
import { api } from './client';
import { queryKeys } from './keys';
import type {
  LoginPayload,
  LoginResponse,
  MessageResponse,
  PasswordResetPayload,
  RegisterPayload,
  RegisterResponse,
  User,
} from './types';

export const authApi = {
  login: (payload: LoginPayload) => api.post<LoginResponse>('/auth/login', payload),
  register: (payload: RegisterPayload) => api.post<RegisterResponse>('/auth/register', payload),
  logout: () => api.post<void>('/auth/logout'),
  me: () => api.get<User>('/auth/me'),
  passwordReset: (payload: PasswordResetPayload) => api.post<MessageResponse>('/user/password-reset', payload),
};

/**
 * Signs in and stores the session (token + user). `onSignedIn` runs just
 * before the session is stored (storing it makes the auth screen navigate away,
 * so callbacks passed to mutate() might not run any more).
 */
export function useLogin(callbacks: { onSignedIn?: (data: LoginResponse) => void; onError?: (error: Error) => void } = {}) {
  return useMutation({
    mutationFn: authApi.login,
    onSuccess: async (data) => {
      callbacks.onSignedIn?.(data);
      await sessionStore.signIn(data.token, data.user);
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
  const revoke = hadToken ? authApi.logout().catch(() => undefined) : Promise.resolve();
  await sessionStore.signOut(options);
  await revoke;
}
