import { useState } from 'react';
import { View, type ViewStyle } from 'react-native';

import { useErrorToast } from '../../hooks/useErrorToast';
import { errorMessage } from '../../services/api/client';
import { useCancelScheduledTransfer, useScheduledTransfers } from '../../services/api/scheduled';
import type { ScheduledTransfer } from '../../services/api/types';
import { toast } from '../../state/toast';
import { useThemed, type ThemedStyle } from '../../theme';
import { formatMoney, localDateTimeText } from '../../utils/format';
import { Badge, type BadgeTone } from '../Badge';
import { Button } from '../Button';
import { Card } from '../Card';
import { ConfirmDialog } from '../ConfirmDialog';
import { DataTable, type Column } from '../DataTable';
import { FREQUENCIES, ScheduleTransferModal } from './ScheduleTransferModal';
import { ScheduledRunsModal } from './ScheduledRunsModal';
import { t } from '../../i18n';
import { statusLabel } from '../StatusBadge';

const STATUS_TONE: Record<string, BadgeTone> = { active: 'info', completed: 'success', cancelled: 'neutral' };

const frequencyLabel = (f: string) => FREQUENCIES().find((x) => x.value === f)?.label ?? f;

/** The Scheduled tab of Transfer Funds: the series with their next run, Cancel, and their past runs. */
export function ScheduledPanel() {
  const themed = useThemed();
  const series = useScheduledTransfers();
  const cancel = useCancelScheduledTransfer();
  const [formOpen, setFormOpen] = useState(false);
  const [cancelling, setCancelling] = useState<ScheduledTransfer | null>(null);
  const [runsOf, setRunsOf] = useState<ScheduledTransfer | null>(null);
  useErrorToast(series.error, series.errorUpdatedAt, (err) => errorMessage(err, t('Failed to fetch scheduled transfers')));

  const confirmCancel = () => {
    if (!cancelling || cancel.isPending) return;
    cancel.mutate(cancelling.id, {
      onSuccess: () => toast.success(t('Scheduled transfer cancelled')),
      onError: (err) => toast.error(errorMessage(err, t('Failed to cancel the scheduled transfer'))),
      onSettled: () => setCancelling(null),
    });
  };

  const columns: Column<ScheduledTransfer>[] = [
    { key: 'next_run_at', title: t('Next run'), render: (s) => (s.status === 'active' ? localDateTimeText(s.next_run_at) || '-' : '-') },
    { key: 'frequency', title: t('Frequency'), render: (s) => frequencyLabel(s.frequency) },
    { key: 'to', title: t('To Account'), render: (s) => s.to_account_id },
    { key: 'amount', title: t('Amount'), render: (s) => formatMoney(s.amount, s.currency) },
    { key: 'until', title: t('Ends'), render: (s) => (s.frequency === 'once' ? '-' : s.until ? localDateTimeText(s.until).slice(0, 10) : 'Never') },
    {
      key: 'status',
      title: t('Status'),
      render: (s) => <Badge label={statusLabel(s.status)} tone={STATUS_TONE[s.status] ?? 'neutral'} testID={`schedule-status-${s.id}`} accessibilityLabel={t('Status {{status}}', { status: statusLabel(s.status) })} />,
    },
    {
      key: 'actions',
      title: t('Actions'),
      flex: 1.6,
      render: (s) => (
        <View style={themed($actions)}>
          <Button title={t('Runs')} variant="outline" size="sm" accessibilityLabel={t('Past runs of the transfer to {{number}}', { number: s.to_account_id })} testID={`schedule-runs-${s.id}`} onPress={() => setRunsOf(s)} />
          {s.status === 'active' ? (
            <Button
              title={t('Cancel')}
              variant="outline"
              size="sm"
              accessibilityLabel={t('Cancel the scheduled transfer to {{number}}', { number: s.to_account_id })}
              testID={`schedule-cancel-${s.id}`}
              onPress={() => setCancelling(s)}
            />
          ) : null}
        </View>
      ),
    },
  ];

  return (
    <Card
      title={t('Scheduled transfers')}
      testID="scheduled-panel"
      action={<Button title={t('Schedule transfer')} icon="calendar" size="sm" testID="schedule-open" onPress={() => setFormOpen(true)} />}
    >
      <DataTable
        testID="scheduled-table"
        columns={columns}
        data={series.isError ? [] : series.data}
        keyExtractor={(s) => String(s.id)}
        loading={series.isPending}
        loadingText={t('Loading scheduled transfers...')}
        error={series.isError ? t('Failed to load scheduled transfers') : null}
        emptyText={t('No scheduled transfers.')}
        stackedRole="list"
      />
      <ScheduleTransferModal visible={formOpen} onClose={() => setFormOpen(false)} />
      <ScheduledRunsModal series={runsOf} onClose={() => setRunsOf(null)} />
      <ConfirmDialog
        visible={cancelling !== null}
        title={t('Cancel scheduled transfer')}
        message={cancelling ? t('Cancel the {{frequency}} transfer of {{amount}} to {{number}}? Past runs stay in your history.', { frequency: frequencyLabel(cancelling.frequency).toLowerCase(), amount: formatMoney(cancelling.amount, cancelling.currency), number: cancelling.to_account_id }) : ''}
        confirmLabel={t('Cancel transfer')}
        cancelLabel={t('Keep it')}
        busy={cancel.isPending}
        onConfirm={confirmCancel}
        onCancel={() => setCancelling(null)}
        testID="schedule-cancel-dialog"
      />
    </Card>
  );
}

const $actions: ThemedStyle<ViewStyle> = ({ spacing }) => ({ flexDirection: 'row', flexWrap: 'wrap', gap: spacing.xs });
