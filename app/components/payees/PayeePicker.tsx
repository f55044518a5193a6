import type { Payee } from '../../services/api/types';
import { Select } from '../Select';
import { t } from '../../i18n';

export interface PayeePickerProps {
  payees: Payee[] | undefined;
  /** The picked payee's id (null: the number was typed). */
  value: number | null;
  onPick: (payee: Payee | null) => void;
  testID: string;
}

/** A saved payee to send to or ask from; nothing when none is saved. */
export function PayeePicker({ payees, value, onPick, testID }: PayeePickerProps) {
  if (!Array.isArray(payees) || payees.length === 0) return null;
  return (
    <Select<number>
      label={t('Saved payee')}
      placeholder={t('Choose a saved payee')}
      options={payees.map((p) => ({ label: `${p.nickname} (${p.account_number})`, value: p.id }))}
      value={value}
      onChange={(id) => onPick(payees.find((p) => p.id === id) ?? null)}
      testID={testID}
    />
  );
}
