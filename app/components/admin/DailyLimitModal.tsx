import { useEffect, useState } from 'react';

import { errorMessage } from '../../services/api/client';
import { useSetDailyLimit } from '../../services/api/limits';
import type { AdminUserRow } from '../../services/api/types';
import { toast } from '../../state/toast';
import { dailyLimitError } from '../../utils/validation';
import { Checkbox } from '../Checkbox';
import { FormModal } from '../FormModal';
import { Text } from '../Text';
import { TextField } from '../TextField';

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
      { userId: user.id, limit: useDefault ? null : amount.trim() },
      {
        onSuccess: () => {
          toast.success(useDefault ? `Daily limit of ${user.name} back to the default` : `Daily limit of ${user.name} set`);
          onClose();
        },
        onError: (err) => toast.error(errorMessage(err, 'Failed to set the daily limit')),
      },
    );
  };

  return (
    <FormModal visible={user !== null} onClose={onClose} title="Daily limit" submitTitle="Save limit" onSubmit={submit} submitting={setLimit.isPending} testIDPrefix="user-limit">
      <Text variant="muted">{user ? `What ${user.name} may send to others per day, in each currency.` : ''}</Text>
      <Checkbox label="Use the bank's default limit" checked={useDefault} onChange={setUseDefault} testID="user-limit-default" />
      {useDefault ? null : (
        <TextField label="Daily limit" required type="number" placeholder="10000.00" value={amount} onChangeText={setAmount} testID="user-limit-amount" />
      )}
    </FormModal>
  );
}
