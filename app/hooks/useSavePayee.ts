import { useRef } from 'react';

import { errorMessage } from '../services/api/client';
import { useCreatePayee } from '../services/api/payees';
import type { Payee } from '../services/api/types';
import { toast } from '../state/toast';
import { payeeFormError } from '../utils/validation';
import { t } from '../i18n';

export interface SavePayeeHandlers {
  /** After the 201 (the "Payee saved" toast is already shown; the list is refreshed). */
  onSaved: (payee: Payee) => void;
  /** The app's sentence for an invalid form, or the server's for a refusal (404, 409, 422). */
  onRefused: (sentence: string) => void;
}

/**
 * Saving a payee, the one way for every form ("Save as payee" under a
 * recipient field, the Add payee dialog): the form is checked first
 * (payeeFormError), then POST /api/user/payees {nickname, account_number};
 * a second press while one is on its way does nothing.
 */
export function useSavePayee({ onSaved, onRefused }: SavePayeeHandlers) {
  const create = useCreatePayee();
  const inFlight = useRef(false);

  const save = (form: { nickname: string; accountNumber: string }) => {
    if (inFlight.current) return;
    const invalid = payeeFormError(form);
    if (invalid) {
      onRefused(invalid);
      return;
    }
    inFlight.current = true;
    create.mutate(
      { nickname: form.nickname.trim(), account_number: form.accountNumber.trim() },
      {
        onSuccess: (payee) => {
          toast.success(t('Payee saved'));
          if (payee) onSaved(payee);
        },
        onError: (err) => onRefused(errorMessage(err, t('Failed to save payee'))),
        onSettled: () => {
          inFlight.current = false;
        },
      },
    );
  };

  return { save, saving: create.isPending };
}
