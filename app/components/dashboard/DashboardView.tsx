import { useState } from 'react';
import { StyleSheet, View } from 'react-native';

import { useErrorToast } from '../../hooks/useErrorToast';
import { useAccounts } from '../../services/api/accounts';
import { errorMessage } from '../../services/api/client';
import { useDashboardSummary, useMonthlySummary } from '../../services/api/dashboard';
import { useAcceptMoneyRequest, useDeclineMoneyRequest, useMoneyRequests } from '../../services/api/moneyRequests';
import { useTransactionHistory } from '../../services/api/transactions';
import type { MoneyRequest } from '../../services/api/types';
import { toast } from '../../state/toast';
import { spacing, useTheme } from '../../theme';
import { currencyOf, formatMoney } from '../../utils/format';
import { Button } from '../Button';
import { Card } from '../Card';
import { AreaChart } from '../charts';
import { DataTable, type Column } from '../DataTable';
import { Loading } from '../Loading';
import { Screen } from '../Screen';
import { canAnswerRequest, StatusBadge } from '../StatusBadge';
import { Text } from '../Text';
import { BalanceCard } from './BalanceCard';
import { CurrencyTotals } from './CurrencyTotals';
import { StatCard } from './StatCard';
import { t } from '../../i18n';
import { HISTORY_COLUMNS, transactionColumns } from '../transactionColumns';
import { texts } from '../../i18n/texts';

export type DashboardVariant = 'user' | 'admin';

/**
 * The User Dashboard and the Admin Dashboard (spec §2): the same layout; the
 * admin one shows 'System Balance', 'Monthly User Growth' and no Actions.
 * The summary cards' amounts are in the base currency (USD); under them, a
 * row per currency (contract §5: the app shows every currency a user holds).
 * The data hooks pick user or admin endpoints from the session's role.
 */
export function DashboardView({ variant }: { variant: DashboardVariant }) {
  const admin = variant === 'admin';
  const { colors } = useTheme();
  const summary = useDashboardSummary();
  const monthly = useMonthlySummary();
  const accounts = useAccounts();
  const requests = useMoneyRequests();
  const transactions = useTransactionHistory();
  const accept = useAcceptMoneyRequest();
  const decline = useDeclineMoneyRequest();
  const [busyId, setBusyId] = useState<number | null>(null);
  useErrorToast(transactions.error, transactions.errorUpdatedAt, texts.transactionsFailed());

  const title = admin ? t('Admin Dashboard') : t('Dashboard');
  const testID = admin ? 'screen-admin-dashboard' : 'screen-user-dashboard';

  if (summary.isPending) {
    return (
      <Screen title={title} testID={testID}>
        <Loading text={t('Loading dashboard...')} testID="dashboard-loading" />
      </Screen>
    );
  }

  const answer = (r: MoneyRequest, action: 'accept' | 'decline') => {
    if (busyId !== null) return;
    setBusyId(r.ID);
    const mutation = action === 'accept' ? accept : decline;
    mutation.mutate(r.ID, {
      onSuccess: () => toast.success(texts.requestAnswered(action)),
      onError: (err) => toast.error(errorMessage(err, texts.requestAnswerFailed(action))),
      onSettled: () => setBusyId(null),
    });
  };

  const requestColumns: Column<MoneyRequest>[] = [
    { key: 'from', title: t('From Account'), render: (r) => r.requester_id },
    { key: 'amount', title: t('Amount'), render: (r) => formatMoney(r.Amount, currencyOf(accounts.data, r.requester_id, r.recipient_id)) },
    { key: 'status', title: t('Status'), render: (r) => <StatusBadge status={r.Status} /> },
  ];
  if (!admin) {
    requestColumns.push({
      key: 'actions',
      title: t('Actions'),
      flex: 1.6,
      render: (r) =>
        canAnswerRequest(r) ? (
          <View style={styles.actions}>
            <Button
              title={t('Accept')}
              size="sm"
              testID={`dashboard-accept-${r.ID}`}
              accessibilityLabel={t('Accept request {{id}}', { id: r.ID })}
              loading={busyId === r.ID && accept.isPending}
              disabled={busyId !== null}
              onPress={() => answer(r, 'accept')}
            />
            <Button
              title={t('Decline')}
              size="sm"
              variant="outline"
              testID={`dashboard-decline-${r.ID}`}
              accessibilityLabel={t('Decline request {{id}}', { id: r.ID })}
              loading={busyId === r.ID && decline.isPending}
              disabled={busyId !== null}
              onPress={() => answer(r, 'decline')}
            />
          </View>
        ) : null,
    });
  }

  const historyColumns = transactionColumns(accounts.data, HISTORY_COLUMNS);

  const s = summary.data;
  return (
    <Screen title={title} testID={testID}>
      <View style={styles.grid}>
        <BalanceCard
          title={admin ? t('System Balance') : t('Account Balance')}
          accounts={accounts.data}
          loading={accounts.isPending}
          error={accounts.isError}
          home={!admin && s && 'total_balance_home' in s && typeof s.total_balance_home === 'number' ? { total: s.total_balance_home, currency: s.home_currency } : null}
        />
        {summary.isError || !s ? (
          <Card style={styles.errorCard}>
            <Text variant="muted" role="alert" testID="dashboard-error" style={{ color: colors.danger }}>
              {t('Failed to load dashboard data')}
            </Text>
          </Card>
        ) : (
          <>
            <StatCard title={t('Total Transactions')} value={String(s.total_transactions ?? 0)} testID="dashboard-total-transactions" />
            <StatCard title={t('Pending Requests')} value={String(s.pending_requests ?? 0)} testID="dashboard-pending-requests" />
            <StatCard title={t('Total Transfers')} value={String(s.total_transfers ?? 0)} testID="dashboard-total-transfers" />
            <StatCard title={t('Total Sent Amount')} value={formatMoney(s.total_sent_amount)} testID="dashboard-total-sent" />
            <StatCard title={t('Total Received Amount')} value={formatMoney(s.total_received_amount)} testID="dashboard-total-received" />
          </>
        )}
      </View>
      {summary.isError || !s ? null : <CurrencyTotals totals={s.by_currency} />}

      <Card title={admin ? t('Monthly User Growth') : t('Monthly Transaction Summary')} testID="dashboard-chart">
        <AreaChart
          data={monthly.data ?? []}
          height={300}
          title={admin ? t('Monthly User Growth') : t('Monthly Transaction Summary')}
          formatY={admin ? undefined : (v) => formatMoney(v).replace(/\.00$/, '')}
        />
      </Card>

      <Card title={t('Recent Money Requests')}>
        <DataTable
          testID="dashboard-requests"
          columns={requestColumns}
          data={requests.isError ? [] : requests.data}
          keyExtractor={(r) => String(r.ID)}
          maxHeight={300}
          loading={requests.isPending}
          loadingText={t('Loading requests...')}
          emptyText={t('No money requests available.')}
        />
      </Card>

      <Card title={t('Recent Transactions')}>
        <DataTable
          testID="dashboard-transactions"
          columns={historyColumns}
          data={transactions.data?.data}
          keyExtractor={(t) => String(t.id)}
          maxHeight={500}
          loading={transactions.isPending}
          loadingText={t('Loading transactions...')}
          error={transactions.isError ? texts.transactionsLoadFailed() : null}
          emptyText={t('No recent transactions available.')}
        />
      </Card>
    </Screen>
  );
}

const styles = StyleSheet.create({
  grid: { flexDirection: 'row', flexWrap: 'wrap', gap: spacing.md },
  actions: { flexDirection: 'row', gap: spacing.sm, flexWrap: 'wrap' },
  errorCard: { flexGrow: 1, flexBasis: 220, justifyContent: 'center' },
});
