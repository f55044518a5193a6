import { useState } from 'react';

import { ApiError, errorMessage } from '../services/api/client';
import { useVerifyTwoFactor } from '../services/api/twoFactor';
import type { TwoFactorChallenge } from '../services/api/types';
import { toast } from '../state/toast';
import { codeOrBackupError, normalizeCode } from '../utils/twoFactor';
import { t } from '../i18n';

/** The server's code for a challenge that expired (5 minutes) or was used already. */
const EXPIRED_CHALLENGE = 'invalid_challenge';

/**
 * The second sign-in step: after a right password with two-factor sign-in on,
 * a current code or a backup code for the challenge. An expired challenge
 * goes back to the password step with the server's sentence.
 */
export function useTwoFactorSignIn() {
  const [challenge, setChallenge] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | null>(null);
  /** Shown on the password step after a challenge ran out. */
  const [expired, setExpired] = useState<string | null>(null);
  const verify = useVerifyTwoFactor({ onSignedIn: () => toast.success(t('Login successful!')) });

  const begin = (answer: TwoFactorChallenge) => {
    setChallenge(answer.challenge);
    setCode('');
    setCodeError(null);
    setExpired(null);
  };

  const back = () => {
    setChallenge(null);
    setCode('');
    setCodeError(null);
    verify.reset();
  };

  const changeCode = (value: string) => {
    setCode(value);
    setCodeError(null);
  };

  const submit = () => {
    if (!challenge || verify.isPending) return;
    const problem = codeOrBackupError(code);
    setCodeError(problem);
    if (problem) return;
    verify.mutate(
      { challenge, code: normalizeCode(code) },
      {
        onError: (err) => {
          if (err instanceof ApiError && err.code === EXPIRED_CHALLENGE) {
            back();
            setExpired(errorMessage(err, t('This sign-in has expired; sign in again with your email and password')));
            return;
          }
          setCodeError(errorMessage(err, t('Invalid code')));
        },
      },
    );
  };

  return {
    challenge,
    active: challenge !== null,
    begin,
    back,
    code,
    changeCode,
    codeError,
    submit,
    verifying: verify.isPending,
    expired,
    clearExpired: () => {
      if (expired !== null) setExpired(null);
    },
  };
}
