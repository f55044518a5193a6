import { useState } from 'react';

import { useSetInterestRate } from '../../services/api/accounts';
import { errorMessage } from '../../services/api/client';
import type { AdminAccountType } from '../../services/api/types';
import { toast } from '../../state/toast';
import { formatInterestRate } from '../../utils/format';
import { decimalForApi, interestRateError } from '../../utils/validation';
import { FormModal } from '../FormModal';
import { Text } from '../Text';
import { TextField } from '../TextField';
import { t } from '../../i18n';

/** Admin: an account type's interest rate, percent a year (PUT /api/admin/account-types/{id}). */
export function InterestRateModal({ type, onClose }: { type: AdminAccountType | null; onClose: () => void }) {
  const setRate = useSetInterestRate();
  const [rate, setRateText] = useState('');
  const [shown, setShown] = useState<AdminAccountType | null>(null);
  // Opening for a type starts from its rate.
  if (type !== shown) {
    setShown(type);
    if (type) setRateText(String(type.interest_rate ?? 0));
  }

  const submit = () => {
    if (!type || setRate.isPending) return;
    const invalid = interestRateError(rate);
    if (invalid) {
      toast.error(invalid);
      return;
    }
    setRate.mutate(
      { id: type.id, rate: Number(decimalForApi(rate)) },
      {
        onSuccess: (row) => {
          toast.success(t('Interest rate of {{type}} set to {{rate}} % a year', { type: row.type_name, rate: formatInterestRate(row.interest_rate) }));
          onClose();
        },
        onError: (err) => toast.error(errorMessage(err, t('Failed to set the interest rate'))),
      },
    );
  };

  return (
    <FormModal
      visible={type !== null}
      onClose={onClose}
      title={t('Interest rate')}
      submitTitle={t('Save rate')}
      onSubmit={submit}
      submitting={setRate.isPending}
      testIDPrefix="interest-rate"
    >
      <Text variant="muted">{type ? t('{{type}} ({{currency}}): percent a year, accrued daily and paid on the 1st of each month.', { type: type.type_name, currency: type.currency }) : ''}</Text>
      <TextField label={t('Interest rate (% a year)')} required type="number" placeholder="2.00" value={rate} onChangeText={setRateText} onSubmitEditing={submit} testID="interest-rate-value" />
    </FormModal>
  );
}
