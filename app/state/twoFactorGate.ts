import { createStore, useStore } from './store';
import { t } from '../i18n';

/**
 * require_2fa_for_admins: an administrator without two-factor sign-in gets
 * 403 `two_factor_required` from every call but the 2FA setup ones. The API
 * client raises the gate on such an answer; the shell then sends the admin to
 * the Security page, which explains why. Turning 2FA on (or signing out)
 * clears it.
 */
export interface TwoFactorGateState {
  /** The server's sentence, while the gate is up. */
  message: string | null;
  /** Bumped on every refusal, so each one (e.g. after opening another page) sends the admin back. */
  raisedAt: number;
}

/** The server's code for "turn two-factor sign-in on first" (pkg/bank/twofactor.go). */
export const TWO_FACTOR_REQUIRED_CODE = 'two_factor_required';

export const TWO_FACTOR_REQUIRED_FALLBACK = 'Administrators must turn on two-factor sign-in first: set it up under Security';

const store = createStore<TwoFactorGateState>({ message: null, raisedAt: 0 });

export const twoFactorGate = {
  getState: store.getState,
  subscribe: store.subscribe,
  raise(message: string | undefined) {
    store.setState((s) => ({ message: message || t(TWO_FACTOR_REQUIRED_FALLBACK), raisedAt: s.raisedAt + 1 }));
  },
  clear() {
    store.setState((s) => (s.message === null ? s : { message: null, raisedAt: s.raisedAt }));
  },
};

export function useTwoFactorGate<S>(selector: (s: TwoFactorGateState) => S): S {
  return useStore(store, selector);
}
