import { useState } from 'react';
import { View, type ViewStyle } from 'react-native';

import { Button, DataTable, Screen, Select, Text, type Column } from '../components';
import { ReasonModal } from '../components/admin/ReasonModal';
import { StatusBadge } from '../components/StatusBadge';
import { useErrorToast } from '../hooks/useErrorToast';
import { useApprovals, useDecideApproval } from '../services/api/approvals';
import { errorMessage } from '../services/api/client';
import type { Approval, ApprovalStatus } from '../services/api/types';
import { useSession } from '../state/session';
import { toast } from '../state/toast';
import { type ThemedStyle, useThemedStyles } from '../theme';
import { localDateTimeText } from '../utils/format';
import { REJECTION_REASON_MAX } from '../utils/validation';
import { t } from '../i18n';

type Filter = ApprovalStatus | 'all';

const FILTERS = (): { label: string; value: Filter }[] => [
  { label: t('Pending'), value: 'pending' },
  { label: t('Approved'), value: 'approved' },
  { label: t('Rejected'), value: 'rejected' },
  { label: t('Expired'), value: 'expired' },
  { label: t('All'), value: 'all' },
];

/** What an approval would do, in a word. */
export function approvalKindLabel(kind: Approval['kind']): string {
  switch (kind) {
    case 'deposit':
      return t('Deposit');
    case 'withdrawal':
      return t('Withdrawal');
    case 'reversal':
      return t('Reversal');
    case 'limit_raise':
      return t('Limit raise');
    default:
      return String(kind);
  }
}

/**
 * Approvals (Admin, contract §8 "Four eyes"): what an administrator asked at
 * or over the threshold waits here for a second one. The one who asked sees
 * no Approve or Reject on it (the server refuses with 403 same_admin too).
 */
export default function ApprovalsScreen() {
  const styles = useThemedStyles(themed);
  const me = useSession((s) => s.user?.id);
  const [filter, setFilter] = useState<Filter>('pending');
  const approvals = useApprovals(filter === 'all' ? undefined : filter);
  const decide = useDecideApproval();
  const [busyId, setBusyId] = useState<number | null>(null);
  const [rejecting, setRejecting] = useState<Approval | null>(null);
  const [rejectError, setRejectError] = useState<string | null>(null);
  useErrorToast(approvals.error, approvals.errorUpdatedAt, t('Failed to fetch approvals'));

  const approve = (a: Approval) => {
    if (busyId !== null) return;
    setBusyId(a.id);
    decide.mutate(
      { id: a.id, decision: 'approve' },
      {
        onSuccess: () => toast.success(t('Approved successfully')),
        onError: (err) => toast.error(errorMessage(err, t('Failed to approve'))),
        onSettled: () => setBusyId(null),
      },
    );
  };

  const reject = (reason: string) => {
    if (!rejecting || busyId !== null) return;
    const a = rejecting;
    setBusyId(a.id);
    setRejectError(null);
    decide.mutate(
      { id: a.id, decision: 'reject', reason },
      {
        onSuccess: () => {
          toast.success(t('Rejected successfully'));
          setRejecting(null);
        },
        onError: (err) => setRejectError(errorMessage(err, t('Failed to reject'))),
        onSettled: () => setBusyId(null),
      },
    );
  };

  const columns: Column<Approval>[] = [
    { key: 'summary', title: t('Summary'), flex: 2, minWidth: 200, render: (a) => a.summary },
    { key: 'kind', title: t('Kind'), flex: 0.8, render: (a) => approvalKindLabel(a.kind) },
    { key: 'by', title: t('Requested by'), flex: 1.2, render: (a) => a.requested_by ?? t('Command line') },
    { key: 'at', title: t('Requested'), flex: 1, render: (a) => localDateTimeText(a.requested_at) },
    { key: 'expires', title: t('Expires'), flex: 1, render: (a) => localDateTimeText(a.expires_at) },
    {
      key: 'status',
      title: t('Status'),
      flex: 1.2,
      render: (a) => (
        <View style={styles.status}>
          <StatusBadge status={a.status} testID={`approval-status-${a.id}`} />
          {a.decided_by ? <Text variant="small">{t('by {{who}}', { who: a.decided_by })}</Text> : null}
          {a.reason ? <Text variant="small">{a.reason}</Text> : null}
        </View>
      ),
    },
    {
      key: 'actions',
      title: t('Actions'),
      flex: 1.6,
      minWidth: 180,
      render: (a) => {
        if (a.status !== 'pending') return null;
        if (me !== undefined && a.requested_by_id === me) {
          return (
            <Text variant="small" testID={`approval-mine-${a.id}`}>
              {t('You asked for this; another administrator must decide it.')}
            </Text>
          );
        }
        return (
          <View style={styles.actions}>
            <Button
              title={t('Approve')}
              size="sm"
              testID={`approval-approve-${a.id}`}
              accessibilityLabel={t('Approve: {{summary}}', { summary: a.summary })}
              loading={busyId === a.id && decide.variables?.decision === 'approve'}
              disabled={busyId !== null}
              onPress={() => approve(a)}
            />
            <Button
              title={t('Reject')}
              size="sm"
              variant="outline"
              testID={`approval-reject-${a.id}`}
              accessibilityLabel={t('Reject: {{summary}}', { summary: a.summary })}
              disabled={busyId !== null}
              onPress={() => {
                setRejectError(null);
                setRejecting(a);
              }}
            />
          </View>
        );
      },
    },
  ];

  return (
    <Screen title={t('Approvals')} testID="screen-approvals">
      <Text variant="muted">{t('Deposits, withdrawals and reversals at or over the threshold, and raises of a daily limit, wait for a second administrator.')}</Text>
      <View style={styles.filter}>
        <Select<Filter> label={t('Status')} options={FILTERS()} value={filter} onChange={(v) => setFilter(v ?? 'pending')} testID="approvals-filter" />
      </View>
      <DataTable
        testID="approvals-table"
        columns={columns}
        data={approvals.isError ? [] : approvals.data}
        keyExtractor={(a) => String(a.id)}
        loading={approvals.isPending}
        loadingText={t('Loading approvals...')}
        error={approvals.isError ? t('Failed to load approvals') : null}
        emptyText={filter === 'pending' ? t('Nothing waits for an approval.') : t('No approvals found.')}
        stackBelow={900}
        stackedRole="list"
      />
      <ReasonModal
        visible={rejecting !== null}
        title={t('Reject')}
        message={rejecting ? t('Reject: {{summary}}', { summary: rejecting.summary }) : ''}
        submitTitle={t('Reject')}
        submitting={decide.isPending}
        error={rejectError}
        onSubmit={reject}
        onClose={() => setRejecting(null)}
        maxLength={REJECTION_REASON_MAX}
        testIDPrefix="reject-approval"
      />
    </Screen>
  );
}

const themed: ThemedStyle<{ status: ViewStyle; actions: ViewStyle; filter: ViewStyle }> = ({ spacing }) => ({
  status: { gap: 2, alignItems: 'flex-start' },
  actions: { flexDirection: 'row', gap: spacing.sm, flexWrap: 'wrap' },
  filter: { minWidth: 200, alignSelf: 'flex-start' },
});
