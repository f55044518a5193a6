import { useMemo, useState } from 'react';

import { useAccounts } from '../services/api/accounts';
import { isPendingApproval } from '../services/api/approvals';
import { ApiError, errorMessage } from '../services/api/client';
import { useAccountFunds, type FundsKind } from '../services/api/funds';
import type { Account } from '../services/api/types';
import { toast } from '../state/toast';
import { formatMoney } from '../utils/format';
import { amountForApi, validateFundsForm, type FundsFormErrors } from '../utils/validation';
import { t } from '../i18n';
import { texts } from '../i18n/texts';

export interface FundsFormErrorsWithForm extends FundsFormErrors {
  account?: string;
  /** A refusal about no field: `Insufficient funds`, a closed account... */
  form?: string;
}

/**
 * An administrator's deposit into, or withdrawal from, one of a customer's
 * accounts (`userId`): the accounts to choose from, the form, its errors and
 * the call. Refusals stay in the form; success toasts and calls `onDone`.
 */
export function useFundsForm(kind: FundsKind, userId: number | null, onDone: () => void) {
  const accounts = useAccounts();
  const move = useAccountFunds();
  const [accountNumber, setAccountNumber] = useState<string | null>(null);
  const [amount, setAmount] = useState('');
  const [description, setDescription] = useState('');
  const [errors, setErrors] = useState<FundsFormErrorsWithForm>({});

  const owned = useMemo<Account[]>(
    () => (Array.isArray(accounts.data) && userId !== null ? accounts.data.filter((a) => a.user_id === userId) : []),
    [accounts.data, userId],
  );
  // The first account is chosen until another is.
  const chosen = owned.find((a) => a.account_number === accountNumber) ?? owned[0] ?? null;

  const reset = () => {
    setAccountNumber(null);
    setAmount('');
    setDescription('');
    setErrors({});
    move.reset();
  };

  const submit = () => {
    if (move.isPending) return;
    const found: FundsFormErrorsWithForm = validateFundsForm({ amount, description });
    if (!chosen) found.account = t('Choose an account');
    setErrors(found);
    if (Object.values(found).some(Boolean) || !chosen) return;
    const typed = amountForApi(amount);
    move.mutate(
      { kind, accountNumber: chosen.account_number, payload: { amount: typed, description: description.trim() || undefined } },
      {
        onSuccess: (answer) => {
          reset();
          onDone();
          if (isPendingApproval(answer)) {
            toast(texts.awaitingApproval());
            return;
          }
          const sum = formatMoney(typed, chosen.currency);
          toast.success(kind === 'deposit' ? t('Deposited {{amount}} into {{number}}', { amount: sum, number: chosen.account_number }) : t('Withdrew {{amount}} from {{number}}', { amount: sum, number: chosen.account_number }));
        },
        onError: (err) => {
          const fields = err instanceof ApiError ? err.fields : undefined;
          if (fields?.amount || fields?.description) setErrors({ amount: fields.amount, description: fields.description });
          else setErrors({ form: errorMessage(err, kind === 'deposit' ? t('Deposit failed') : t('Withdrawal failed')) });
        },
      },
    );
  };

  const clear = (key: keyof FundsFormErrorsWithForm) => setErrors((e) => ({ ...e, [key]: undefined, form: undefined }));

  return {
    accounts: owned,
    loadingAccounts: accounts.isPending,
    chosen,
    choose: (n: string | null) => {
      setAccountNumber(n);
      clear('account');
    },
    amount,
    setAmount: (v: string) => {
      setAmount(v);
      clear('amount');
    },
    description,
    setDescription: (v: string) => {
      setDescription(v);
      clear('description');
    },
    errors,
    submit,
    submitting: move.isPending,
    reset,
  };
}
