import { useEffect, useState } from 'react';

import { errorMessage } from '../../services/api/client';
import { useSetDailyLimit } from '../../services/api/limits';
import type { AdminUserRow } from '../../services/api/types';
import { toast } from '../../state/toast';
import { dailyLimitError } from '../../utils/validation';
import { FormModal } from '../FormModal';
import { Text } from '../Text';
import { TextField } from '../TextField';

/** Admin: one customer's daily outgoing limit (PUT /api/admin/users/{id}/limits), per currency. */
export function DailyLimitModal({ user, onClose }: { user: AdminUserRow | null; onClose: () => void }) {
  const setLimit = useSetDailyLimit();
  const [amount, setAmount] = useState('');
  useEffect(() => {
    if (user) setAmount('');
  }, [user]);

  const submit = () => {
    if (!user || setLimit.isPending) return;
    const invalid = dailyLimitError(amount);
    if (invalid) {
      toast.error(invalid);
      return;
    }
    setLimit.mutate(
      { userId: user.id, limit: amount.trim() },
      {
        onSuccess: () => {
          toast.success(`Daily limit of ${user.name} set`);
          onClose();
        },
        onError: (err) => toast.error(errorMessage(err, 'Failed to set the daily limit')),
      },
    );
  };

  return (
    <FormModal visible={user !== null} onClose={onClose} title="Daily limit" submitTitle="Save limit" onSubmit={submit} submitting={setLimit.isPending} testIDPrefix="user-limit">
      <Text variant="muted">{user ? `What ${user.name} may send per day, in each currency.` : ''}</Text>
      <TextField label="Daily limit" required type="number" placeholder="10000.00" value={amount} onChangeText={setAmount} testID="user-limit-amount" />
    </FormModal>
  );
}
