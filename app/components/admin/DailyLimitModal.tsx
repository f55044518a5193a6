import { useEffect, useState } from 'react';

import { isPendingApproval } from '../../services/api/approvals';
import { errorMessage } from '../../services/api/client';
import { useSetDailyLimit } from '../../services/api/limits';
import type { AdminUserRow } from '../../services/api/types';
import { toast } from '../../state/toast';
import { amountForApi, dailyLimitError } from '../../utils/validation';
import { Checkbox } from '../Checkbox';
import { FormModal } from '../FormModal';
import { Text } from '../Text';
import { TextField } from '../TextField';
import { t } from '../../i18n';
import { texts } from '../../i18n/texts';

/**
 * Admin: one customer's daily outgoing limit (PUT /api/admin/users/{id}/limits),
 * the same amount in each currency, or back to the bank's default.
 */
export function DailyLimitModal({ user, onClose }: { user: AdminUserRow | null; onClose: () => void }) {
  const setLimit = useSetDailyLimit();
  const [amount, setAmount] = useState('');
  const [useDefault, setUseDefault] = useState(false);
  useEffect(() => {
    if (user) {
      setAmount('');
      setUseDefault(false);
    }
  }, [user]);

  const submit = () => {
    if (!user || setLimit.isPending) return;
    const invalid = useDefault ? null : dailyLimitError(amount);
    if (invalid) {
      toast.error(invalid);
      return;
    }
    setLimit.mutate(
      { userId: user.id, limit: useDefault ? null : amountForApi(amount) },
      {
        onSuccess: (answer) => {
          onClose();
          if (isPendingApproval(answer)) {
            toast(texts.awaitingApproval());
            return;
          }
          toast.success(useDefault ? t('Daily limit of {{name}} back to the default', { name: user.name }) : t('Daily limit of {{name}} set', { name: user.name }));
        },
        onError: (err) => toast.error(errorMessage(err, t('Failed to set the daily limit'))),
      },
    );
  };

  return (
    <FormModal visible={user !== null} onClose={onClose} title={t('Daily limit')} submitTitle={t('Save limit')} onSubmit={submit} submitting={setLimit.isPending} testIDPrefix="user-limit">
      <Text variant="muted">{user ? t('What {{name}} may send to others per day, in each currency.', { name: user.name }) : ''}</Text>
      <Checkbox label={t('Use the bank\'s default limit')} checked={useDefault} onChange={setUseDefault} testID="user-limit-default" />
      {useDefault ? null : (
        <TextField label={t('Daily limit')} required type="number" placeholder="10000.00" value={amount} onChangeText={setAmount} testID="user-limit-amount" />
      )}
    </FormModal>
  );
}
