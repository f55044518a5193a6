import { useState } from 'react';

import { isPendingApproval } from '../../services/api/approvals';
import { errorMessage } from '../../services/api/client';
import { useReverseTransaction } from '../../services/api/transactions';
import type { Transaction } from '../../services/api/types';
import { toast } from '../../state/toast';
import { datePart, formatMoney } from '../../utils/format';
import { REVERSAL_REASON_MAX } from '../../utils/validation';
import { ReasonModal } from './ReasonModal';
import { t } from '../../i18n';
import { texts } from '../../i18n/texts';

/**
 * Admin: reverses a posted transaction (contract §8 "Corrections"), with a
 * reason. 201: reversed; 202: at or over the threshold, it waits for a
 * second administrator; a refusal (409 already reversed, 422 the recipient no
 * longer holds the amount) stays in the dialog.
 */
export function ReverseDialog({ tx, currency, onClose }: { tx: Transaction | null; currency: string; onClose: () => void }) {
  const reverse = useReverseTransaction();
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState(tx);
  if (tx !== shown) {
    setShown(tx);
    setError(null);
  }

  const submit = (reason: string) => {
    if (!tx || reverse.isPending) return;
    setError(null);
    reverse.mutate(
      { id: tx.id, reason },
      {
        onSuccess: (answer) => {
          onClose();
          if (isPendingApproval(answer)) toast(texts.awaitingApproval());
          else toast.success(t('Transaction reversed'));
        },
        onError: (err) => setError(errorMessage(err, t('Failed to reverse the transaction'))),
      },
    );
  };

  return (
    <ReasonModal
      visible={tx !== null}
      title={t('Reverse transaction')}
      message={
        tx
          ? t('Reverse {{amount}} from {{from}} to {{to}} of {{date}}? The same amount moves back and both parties are notified.', {
              amount: formatMoney(tx.amount, currency),
              from: tx.account_id,
              to: tx.to_account_id,
              date: datePart(tx.transaction_date),
            })
          : ''
      }
      submitTitle={t('Reverse')}
      submitting={reverse.isPending}
      error={error}
      onSubmit={submit}
      onClose={onClose}
      maxLength={REVERSAL_REASON_MAX}
      testIDPrefix="reverse"
    />
  );
}
