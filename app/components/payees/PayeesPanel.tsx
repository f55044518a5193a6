import { useState } from 'react';

import { useErrorToast } from '../../hooks/useErrorToast';
import { errorMessage } from '../../services/api/client';
import { useDeletePayee, usePayees } from '../../services/api/payees';
import type { Payee } from '../../services/api/types';
import { toast } from '../../state/toast';
import { datePart } from '../../utils/format';
import { Button } from '../Button';
import { Card } from '../Card';
import { ConfirmDialog } from '../ConfirmDialog';
import { DataTable, type Column } from '../DataTable';
import { AddPayeeModal } from './AddPayeeModal';
import { t } from '../../i18n';

/** The saved payees: Add payee (a form), Delete (after a confirmation). */
export function PayeesPanel() {
  const payees = usePayees();
  const remove = useDeletePayee();
  const [doomed, setDoomed] = useState<Payee | null>(null);
  const [adding, setAdding] = useState(false);
  useErrorToast(payees.error, payees.errorUpdatedAt, (err) => errorMessage(err, t('Failed to fetch payees')));

  const confirm = () => {
    if (!doomed || remove.isPending) return;
    remove.mutate(doomed.id, {
      onSuccess: () => {
        toast.success(t('Payee deleted'));
        setDoomed(null);
      },
      onError: (err) => {
        toast.error(errorMessage(err, t('Failed to delete payee')));
        setDoomed(null);
      },
    });
  };

  const columns: Column<Payee>[] = [
    { key: 'nickname', title: t('Nickname'), flex: 1.2 },
    { key: 'account_number', title: t('Account'), flex: 1.2 },
    { key: 'holder_name', title: t('Holder'), flex: 1.4 },
    { key: 'created_at', title: t('Saved'), render: (p) => datePart(p.created_at) },
    {
      key: 'actions',
      title: t('Actions'),
      render: (p) => (
        <Button
          title={t('Delete')}
          variant="outline"
          size="sm"
          icon="trash-2"
          accessibilityLabel={t('Delete payee {{nickname}}', { nickname: p.nickname })}
          testID={`payee-delete-${p.id}`}
          onPress={() => setDoomed(p)}
        />
      ),
    },
  ];

  return (
    <Card
      title={t('Saved payees')}
      testID="payees-panel"
      action={<Button title={t('Add payee')} size="sm" icon="user-plus" testID="payee-add-open" onPress={() => setAdding(true)} />}
    >
      <DataTable
        testID="payees-table"
        columns={columns}
        data={payees.isError ? [] : payees.data}
        keyExtractor={(p) => String(p.id)}
        loading={payees.isPending}
        loadingText={t('Loading payees...')}
        error={payees.isError ? t('Failed to load payees') : null}
        emptyText={t('No saved payees. Add one, or save one from the transfer form.')}
        stackedRole="list"
      />
      <ConfirmDialog
        visible={doomed !== null}
        title={t('Delete payee')}
        message={doomed ? t('Delete {{nickname}} ({{number}}) from your payees?', { nickname: doomed.nickname, number: doomed.account_number }) : ''}
        busy={remove.isPending}
        onConfirm={confirm}
        onCancel={() => setDoomed(null)}
        testID="payee-delete-dialog"
      />
      <AddPayeeModal visible={adding} onClose={() => setAdding(false)} />
    </Card>
  );
}
