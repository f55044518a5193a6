import type { AppLockGateProps } from './AppLockGate';

/** The web has no app switcher snapshot nor biometrics: no cover, no lock (see AppLockGate.tsx). */
export function AppLockGate(_props: AppLockGateProps) {
  return null;
}
