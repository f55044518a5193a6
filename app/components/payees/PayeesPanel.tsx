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

/** The saved payees: Add payee (a form), Delete (after a confirmation). */
export function PayeesPanel() {
  const payees = usePayees();
  const remove = useDeletePayee();
  const [doomed, setDoomed] = useState<Payee | null>(null);
  const [adding, setAdding] = useState(false);
  useErrorToast(payees.error, payees.errorUpdatedAt, (err) => errorMessage(err, 'Failed to fetch payees'));

  const confirm = () => {
    if (!doomed || remove.isPending) return;
    remove.mutate(doomed.id, {
      onSuccess: () => {
        toast.success('Payee deleted');
        setDoomed(null);
      },
      onError: (err) => {
        toast.error(errorMessage(err, 'Failed to delete payee'));
        setDoomed(null);
      },
    });
  };

  const columns: Column<Payee>[] = [
    { key: 'nickname', title: 'Nickname', flex: 1.2 },
    { key: 'account_number', title: 'Account', flex: 1.2 },
    { key: 'holder_name', title: 'Holder', flex: 1.4 },
    { key: 'created_at', title: 'Saved', render: (p) => datePart(p.created_at) },
    {
      key: 'actions',
      title: 'Actions',
      render: (p) => (
        <Button
          title="Delete"
          variant="outline"
          size="sm"
          icon="trash-2"
          accessibilityLabel={`Delete payee ${p.nickname}`}
          testID={`payee-delete-${p.id}`}
          onPress={() => setDoomed(p)}
        />
      ),
    },
  ];

  return (
    <Card
      title="Saved payees"
      testID="payees-panel"
      action={<Button title="Add payee" size="sm" icon="user-plus" testID="payee-add-open" onPress={() => setAdding(true)} />}
    >
      <DataTable
        testID="payees-table"
        columns={columns}
        data={payees.isError ? [] : payees.data}
        keyExtractor={(p) => String(p.id)}
        loading={payees.isPending}
        loadingText="Loading payees..."
        error={payees.isError ? 'Failed to load payees' : null}
        emptyText="No saved payees. Add one, or save one from the transfer form."
        stackedRole="list"
      />
      <ConfirmDialog
        visible={doomed !== null}
        title="Delete payee"
        message={doomed ? `Delete ${doomed.nickname} (${doomed.account_number}) from your payees?` : ''}
        busy={remove.isPending}
        onConfirm={confirm}
        onCancel={() => setDoomed(null)}
        testID="payee-delete-dialog"
      />
      <AddPayeeModal visible={adding} onClose={() => setAdding(false)} />
    </Card>
  );
}
