import { useErrorToast } from '../../hooks/useErrorToast';
import { errorMessage } from '../../services/api/client';
import { useScheduledRuns } from '../../services/api/scheduled';
import type { ScheduledRun, ScheduledTransfer } from '../../services/api/types';
import { localDateTimeText } from '../../utils/format';
import { Badge } from '../Badge';
import { DataTable, type Column } from '../DataTable';
import { Modal } from '../Modal';
import { t } from '../../i18n';
import { statusLabel } from '../StatusBadge';

const columns = (): Column<ScheduledRun>[] =>
  [
  { key: 'run_at', title: t('Ran at'), render: (r) => localDateTimeText(r.run_at) },
  {
    key: 'status',
    title: t('Status'),
    render: (r) => <Badge label={statusLabel(r.status)} tone={r.status === 'succeeded' ? 'success' : 'danger'} accessibilityLabel={t('Status {{status}}', { status: statusLabel(r.status) })} />,
  },
  { key: 'reason', title: t('Reason'), flex: 2, render: (r) => r.reason ?? '' },
];

/** One series' past runs (GET /api/user/scheduled-transfers/{id}/runs), newest first. */
export function ScheduledRunsModal({ series, onClose }: { series: ScheduledTransfer | null; onClose: () => void }) {
  const runs = useScheduledRuns(series?.id ?? null);
  useErrorToast(runs.error, runs.errorUpdatedAt, (err) => errorMessage(err, t('Failed to fetch past runs')));
  return (
    <Modal visible={series !== null} onClose={onClose} title={series ? t('Past runs: to {{number}}', { number: series.to_account_id }) : t('Past runs')} testID="schedule-runs-modal" maxWidth={640}>
      <DataTable
        testID="schedule-runs-table"
        columns={columns()}
        data={runs.isError ? [] : runs.data}
        keyExtractor={(r, i) => `${r.run_at}-${i}`}
        loading={runs.isPending}
        loadingText={t('Loading runs...')}
        error={runs.isError ? t('Failed to load runs') : null}
        emptyText={t('No runs yet.')}
        stackedRole="list"
      />
    </Modal>
  );
}
