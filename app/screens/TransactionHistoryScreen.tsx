import type { RouteProp } from '@react-navigation/native';
import { useRoute } from '@react-navigation/native';
import { useState } from 'react';
import { StyleSheet, View } from 'react-native';

import { Button, DataTable, Screen, Select, Text, type Column } from '../components';
import { StatementModal } from '../components/statements/StatementModal';
import { TransactionTypeBadge } from '../components/StatusBadge';
import { useErrorToast } from '../hooks/useErrorToast';
import type { AppParamList } from '../navigators/routes';
import { useAccounts } from '../services/api/accounts';
import { useTransactionHistoryPages } from '../services/api/transactions';
import { isAdmin, useSession } from '../state/session';
import type { Transaction, TransactionType } from '../services/api/types';
import { spacing } from '../theme';
import { currencyOf, datePart, formatMoney } from '../utils/format';

/** Rows per page of "load more". */
export const HISTORY_PAGE_SIZE = 50;

type Filter = 'ALL' | TransactionType;

const FILTERS: { label: string; value: Filter }[] = [
  { label: 'All Transactions', value: 'ALL' },
  { label: 'Debit', value: 'DEBIT' },
  { label: 'Credit', value: 'CREDIT' },
];

/** Transaction History (spec §2), `?account_id=`; type filter and paging by the server. */
export default function TransactionHistoryScreen() {
  const route = useRoute<RouteProp<AppParamList, 'TransactionHistory'>>();
  const accountId = route.params?.account_id || undefined;
  const [filter, setFilter] = useState<Filter>('ALL');
  const [statementOpen, setStatementOpen] = useState(false);
  // Statements are a customer's (GET /api/user/statements); an admin reads the history only.
  const customer = useSession((s) => !!s.user && !isAdmin(s.user));
  const accounts = useAccounts(); // for each row's currency
  const history = useTransactionHistoryPages({
    account_id: accountId,
    transaction_type: filter === 'ALL' ? undefined : filter,
    limit: HISTORY_PAGE_SIZE,
  });
  // A failed "load more" keeps the rows shown and says so below them; only a failed first page toasts.
  useErrorToast(history.data ? null : history.error, history.errorUpdatedAt, 'Failed to fetch transactions');

  const rows = history.data?.pages.flatMap((p) => p?.data ?? []) ?? [];

  const columns: Column<Transaction>[] = [
    { key: 'date', title: 'Date', render: (t) => datePart(t.transaction_date) },
    { key: 'description', title: 'Description', flex: 1.5, render: (t) => t.description ?? '' },
    { key: 'type', title: 'Type', render: (t) => <TransactionTypeBadge type={t.transaction_type} /> },
    { key: 'amount', title: 'Amount', render: (t) => formatMoney(t.amount, currencyOf(accounts.data, t.account_id, t.to_account_id)) },
    { key: 'to', title: 'To Account', render: (t) => t.to_account_id },
  ];

  return (
    <Screen
      title="Transaction History"
      testID="screen-transaction-history"
      fill
      actions={
        customer ? <Button title="Download statement" icon="download" variant="outline" testID="statement-open" onPress={() => setStatementOpen(true)} /> : undefined
      }
    >
      <View style={styles.toolbar}>
        <Text variant="muted" testID="history-scope">
          {accountId ? `Account ${accountId}` : 'All accounts'}
        </Text>
        <View style={styles.filter}>
          <Select<Filter>
            label="Transaction type"
            options={FILTERS}
            value={filter}
            onChange={(v) => setFilter(v ?? 'ALL')}
            testID="history-filter"
          />
        </View>
      </View>
      <DataTable
        testID="history-table"
        columns={columns}
        data={rows}
        keyExtractor={(t) => String(t.id)}
        loading={history.isPending}
        loadingText="Loading transactions..."
        error={history.isError && !history.data ? 'Failed to load transactions' : null}
        emptyText="No transactions found."
        virtualized
        footer={
          <>
            {history.hasNextPage ? (
              <Button
                title="Load more"
                variant="outline"
                testID="history-load-more"
                loading={history.isFetchingNextPage}
                onPress={() => void history.fetchNextPage()}
                style={styles.more}
              />
            ) : null}
            {history.isFetchNextPageError ? (
              <Text variant="muted" role="alert">
                Failed to load transactions
              </Text>
            ) : null}
          </>
        }
      />
      {customer ? <StatementModal visible={statementOpen} onClose={() => setStatementOpen(false)} account={accountId} /> : null}
    </Screen>
  );
}

const styles = StyleSheet.create({
  toolbar: { flexDirection: 'row', flexWrap: 'wrap', alignItems: 'flex-end', justifyContent: 'space-between', gap: spacing.md },
  filter: { minWidth: 200, flexGrow: 0 },
  more: { alignSelf: 'center', marginVertical: spacing.md },
});
