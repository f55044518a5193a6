import { useState } from 'react';

import { ApiError, errorMessage } from '../services/api/client';
import { useDisableTwoFactor, useEnableTwoFactor, useTwoFactorSetup, useTwoFactorStatus } from '../services/api/twoFactor';
import type { TwoFactorSetup } from '../services/api/types';
import { toast } from '../state/toast';
import { codeOrBackupError, normalizeCode, totpCodeError } from '../utils/twoFactor';
import { t } from '../i18n';

/** Where the Security page's two-factor section is. */
export type TwoFactorStep =
  | { kind: 'status' }
  | { kind: 'setup'; setup: TwoFactorSetup }
  | { kind: 'codes'; codes: string[] };

/** The server's sentence for a field, else its message, else the fallback. */
function fieldOrMessage(err: unknown, field: string, fallback: string): string {
  if (err instanceof ApiError && err.fields?.[field]) return err.fields[field];
  return errorMessage(err, fallback);
}

/**
 * Turning two-factor sign-in on: set up (a secret and its QR code), confirm
 * with a current code, then show the backup codes once.
 */
export function useTwoFactorFlow() {
  const status = useTwoFactorStatus();
  const setup = useTwoFactorSetup();
  const enable = useEnableTwoFactor();
  const [step, setStep] = useState<TwoFactorStep>({ kind: 'status' });
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | null>(null);

  const start = () => {
    if (setup.isPending) return;
    setup.mutate(undefined, {
      onSuccess: (answer) => {
        setCode('');
        setCodeError(null);
        setStep({ kind: 'setup', setup: answer });
      },
      onError: (err) => toast.error(errorMessage(err, t('Failed to set up two-factor sign-in'))),
    });
  };

  const cancel = () => {
    setCode('');
    setCodeError(null);
    setStep({ kind: 'status' });
  };

  const changeCode = (value: string) => {
    setCode(value);
    setCodeError(null);
  };

  const confirm = () => {
    if (enable.isPending) return;
    const problem = totpCodeError(code);
    setCodeError(problem);
    if (problem) return;
    enable.mutate(normalizeCode(code), {
      onSuccess: (answer) => {
        setCode('');
        setStep({ kind: 'codes', codes: answer.backup_codes });
      },
      onError: (err) => setCodeError(fieldOrMessage(err, 'code', 'Failed to turn on two-factor sign-in')),
    });
  };

  const finish = () => {
    setStep({ kind: 'status' });
    toast.success(t('Two-factor sign-in is on'));
  };

  return { status, step, start, starting: setup.isPending, cancel, code, changeCode, codeError, confirm, confirming: enable.isPending, finish };
}

export interface DisableErrors {
  password?: string;
  code?: string;
  /** A refusal that is about neither field (e.g. too many attempts). */
  form?: string;
}

/** Turning two-factor sign-in off: the password and a current or backup code. */
export function useDisableTwoFactorForm(onDone: () => void) {
  const disable = useDisableTwoFactor();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<DisableErrors>({});

  const reset = () => {
    setPassword('');
    setCode('');
    setErrors({});
    disable.reset();
  };

  const submit = () => {
    if (disable.isPending) return;
    const found: DisableErrors = {};
    if (!password) found.password = t('Password is required');
    const codeProblem = codeOrBackupError(code);
    if (codeProblem) found.code = codeProblem;
    setErrors(found);
    if (found.password || found.code) return;
    disable.mutate(
      { password, code: normalizeCode(code) },
      {
        onSuccess: () => {
          toast.success(t('Two-factor sign-in is off'));
          reset();
          onDone();
        },
        onError: (err) => {
          const fields = err instanceof ApiError ? err.fields : undefined;
          if (fields?.password || fields?.code) setErrors({ password: fields.password, code: fields.code });
          else setErrors({ form: errorMessage(err, t('Failed to turn off two-factor sign-in')) });
        },
      },
    );
  };

  return {
    password,
    setPassword: (v: string) => {
      setPassword(v);
      setErrors((e) => ({ ...e, password: undefined, form: undefined }));
    },
    code,
    setCode: (v: string) => {
      setCode(v);
      setErrors((e) => ({ ...e, code: undefined, form: undefined }));
    },
    errors,
    submit,
    submitting: disable.isPending,
    reset,
  };
}
