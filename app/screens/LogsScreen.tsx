import { StyleSheet, View } from 'react-native';

import { Button, DataTable, Screen, type Column } from '../components';
import { AuditChainBadge } from '../components/AuditChainBadge';
import { useErrorToast } from '../hooks/useErrorToast';
import { UnexpectedFormatError, useAuditLogPages } from '../services/api/admin';
import type { AuditLog } from '../services/api/types';
import { spacing } from '../theme';
import { formatFullDate } from '../utils/relativeTime';
import { t } from '../i18n';

/** 'Unexpected response format from server' when audit_logs is not an array, else 'Failed to fetch logs'. */
export function logsError(error: unknown): string {
  return error instanceof UnexpectedFormatError ? error.message : t('Failed to fetch logs');
}

function timestamp(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value ?? '' : formatFullDate(date);
}

const dash = (value: string | null | undefined) => (value === null || value === undefined || value === '' ? '—' : String(value));

const columns = (): Column<AuditLog>[] =>
  [
  { key: 'FullName', title: t('User'), flex: 1.2, render: (row) => dash(row.FullName) },
  { key: 'AccountNumber', title: t('Account'), flex: 1.1, render: (row) => dash(row.AccountNumber) },
  { key: 'ActionType', title: t('Action'), flex: 1, render: (row) => dash(row.ActionType) },
  { key: 'TableName', title: t('Table'), flex: 1, render: (row) => dash(row.TableName) },
  { key: 'Description', title: t('Description'), flex: 2.2, render: (row) => dash(row.Description) },
  { key: 'ActionTimestamp', title: t('Timestamp'), flex: 1.4, render: (row) => timestamp(row.ActionTimestamp) },
];

/**
 * System Logs: the audit log, newest first, a page at a time, and a badge
 * telling whether its hash chain verifies. No role check here (only the
 * sidebar hides it).
 */
export default function LogsScreen() {
  const logs = useAuditLogPages();
  // A failed "load more" keeps the rows already shown; the toast says what went wrong.
  useErrorToast(logs.error, logs.errorUpdatedAt, logsError);

  const rows = logs.data?.pages.flatMap((p) => p.logs) ?? [];
  const failedFirstPage = logs.isError && rows.length === 0;

  return (
    <Screen title={t('System Logs')} testID="screen-logs" fill actions={<AuditChainBadge />}>
      <DataTable
        testID="logs-table"
        columns={columns()}
        data={rows}
        keyExtractor={(row, i) => (row.id !== undefined && row.id !== null ? String(row.id) : `log-${i}`)}
        loading={logs.isPending}
        loadingText={t('Loading logs...')}
        error={failedFirstPage ? logsError(logs.error) : null}
        emptyText={t('No logs available')}
        stackBelow={760}
        stackedRole="list"
        virtualized
        footer={
          logs.hasNextPage ? (
            <View style={styles.more}>
              <Button
                title={logs.isFetchingNextPage ? t('Loading...') : t('Load more')}
                variant="outline"
                testID="logs-load-more"
                loading={logs.isFetchingNextPage}
                onPress={() => void logs.fetchNextPage()}
              />
            </View>
          ) : null
        }
      />
    </Screen>
  );
}

const styles = StyleSheet.create({ more: { alignItems: 'center', paddingVertical: spacing.lg } });
