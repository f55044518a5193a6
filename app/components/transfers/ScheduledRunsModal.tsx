import { useErrorToast } from '../../hooks/useErrorToast';
import { errorMessage } from '../../services/api/client';
import { useScheduledRuns } from '../../services/api/scheduled';
import type { ScheduledRun, ScheduledTransfer } from '../../services/api/types';
import { localDateTimeText } from '../../utils/format';
import { Badge } from '../Badge';
import { DataTable, type Column } from '../DataTable';
import { Modal } from '../Modal';

const columns: Column<ScheduledRun>[] = [
  { key: 'run_at', title: 'Ran at', render: (r) => localDateTimeText(r.run_at) },
  {
    key: 'status',
    title: 'Status',
    render: (r) => <Badge label={r.status} tone={r.status === 'succeeded' ? 'success' : 'danger'} accessibilityLabel={`Status ${r.status}`} />,
  },
  { key: 'reason', title: 'Reason', flex: 2, render: (r) => r.reason ?? '' },
];

/** One series' past runs (GET /api/user/scheduled-transfers/{id}/runs), newest first. */
export function ScheduledRunsModal({ series, onClose }: { series: ScheduledTransfer | null; onClose: () => void }) {
  const runs = useScheduledRuns(series?.id ?? null);
  useErrorToast(runs.error, runs.errorUpdatedAt, (err) => errorMessage(err, 'Failed to fetch past runs'));
  return (
    <Modal visible={series !== null} onClose={onClose} title={series ? `Past runs: to ${series.to_account_id}` : 'Past runs'} testID="schedule-runs-modal" maxWidth={640}>
      <DataTable
        testID="schedule-runs-table"
        columns={columns}
        data={runs.isError ? [] : runs.data}
        keyExtractor={(r, i) => `${r.run_at}-${i}`}
        loading={runs.isPending}
        loadingText="Loading runs..."
        error={runs.isError ? 'Failed to load runs' : null}
        emptyText="No runs yet."
        stackedRole="list"
      />
    </Modal>
  );
}
