import { useAccountLookup } from '../services/api/accounts';
import type { Payee } from '../services/api/types';
import { useDebouncedValue } from './useDebouncedValue';
import { useErrorToast } from './useErrorToast';
import { t } from '../i18n';

/** Spec §9: the recipient lookup waits 1000 ms after typing, for 6+ characters. */
export const LOOKUP_DELAY_MS = 1000;

/**
 * The recipient's full name for the number in the field. A number picked
 * from a saved payee already carries its holder's name: no lookup is made.
 * A typed number is looked up 1000 ms after typing stops (the lookup hook
 * runs only for 6+ characters); a name is shown only for the number in the
 * field now, and any failure of the lookup (404, 429, no network) says
 * 'Account not found'.
 */
export function useRecipientName(accountNumber: string, payee?: Pick<Payee, 'account_number' | 'holder_name'> | null): string {
  const typed = accountNumber.trim();
  const known = payee && payee.account_number === typed ? payee.holder_name : null;
  const settled = useDebouncedValue(known ? '' : typed, LOOKUP_DELAY_MS);
  const lookup = useAccountLookup(known ? '' : settled);
  useErrorToast(lookup.error, lookup.errorUpdatedAt, t('Account not found'));
  if (known) return known;
  return settled === typed && lookup.data ? lookup.data.full_name ?? '' : '';
}
