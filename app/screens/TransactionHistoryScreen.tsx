import type { RouteProp } from '@react-navigation/native';
import { useRoute } from '@react-navigation/native';
import { useState } from 'react';
import { StyleSheet, View } from 'react-native';

import { Badge, Button, DataTable, Screen, Select, Text } from '../components';
import { ReverseDialog } from '../components/admin/ReverseDialog';
import { StatementModal } from '../components/statements/StatementModal';
import { useErrorToast } from '../hooks/useErrorToast';
import type { AppParamList } from '../navigators/routes';
import { useAccounts } from '../services/api/accounts';
import { useTransactionHistoryPages } from '../services/api/transactions';
import { isAdmin, useSession } from '../state/session';
import type { Transaction, TransactionType } from '../services/api/types';
import { spacing } from '../theme';
import { BASE_CURRENCY, currencyOf } from '../utils/format';
import { t } from '../i18n';
import { transactionColumns } from '../components/transactionColumns';
import { texts } from '../i18n/texts';

/** Rows per page of "load more". */
export const HISTORY_PAGE_SIZE = 50;

type Filter = 'ALL' | TransactionType;

const FILTERS = (): { label: string; value: Filter }[] =>
  [
  { label: t('All Transactions'), value: 'ALL' },
  { label: t('Debit'), value: 'DEBIT' },
  { label: t('Credit'), value: 'CREDIT' },
];

/** Transaction History (spec §2), `?account_id=`; type filter and paging by the server. */
export default function TransactionHistoryScreen() {
  const route = useRoute<RouteProp<AppParamList, 'TransactionHistory'>>();
  const accountId = route.params?.account_id || undefined;
  const [filter, setFilter] = useState<Filter>('ALL');
  const [statementOpen, setStatementOpen] = useState(false);
  // Statements are a customer's (GET /api/user/statements); an admin reads the history only.
  const customer = useSession((s) => !!s.user && !isAdmin(s.user));
  const admin = useSession((s) => isAdmin(s.user));
  // Admin: the row being reversed (contract §8 "Corrections").
  const [reversing, setReversing] = useState<Transaction | null>(null);
  const accounts = useAccounts(); // for each row's currency
  const history = useTransactionHistoryPages({
    account_id: accountId,
    transaction_type: filter === 'ALL' ? undefined : filter,
    limit: HISTORY_PAGE_SIZE,
  });
  // A failed "load more" keeps the rows shown and says so below them; only a failed first page toasts.
  useErrorToast(history.data ? null : history.error, history.errorUpdatedAt, texts.transactionsFailed());

  const rows = history.data?.pages.flatMap((p) => p?.data ?? []) ?? [];

  const columns = transactionColumns(accounts.data, ['date', 'description', 'type', 'amount', 'to']);
  if (admin) {
    columns.push({
      key: 'reverse',
      title: t('Correction'),
      flex: 0.9,
      minWidth: 112,
      // A reversal is never reversed, and a transaction only once: a badge says which.
      render: (tx) =>
        tx.reversed_by != null ? (
          <Badge label={t('Reversed')} tone="neutral" testID={`history-reversed-${tx.id}`} />
        ) : tx.reverses != null || tx.kind === 'reversal' ? (
          <Badge label={t('Reversal')} tone="info" testID={`history-reversal-${tx.id}`} />
        ) : (
          <Button
            title={t('Reverse')}
            variant="outline"
            size="sm"
            testID={`history-reverse-${tx.id}`}
            accessibilityLabel={t('Reverse transaction {{id}}', { id: tx.id })}
            onPress={() => setReversing(tx)}
          />
        ),
    });
  }

  return (
    <Screen
      title={t('Transaction History')}
      testID="screen-transaction-history"
      fill
      actions={
        customer ? <Button title={t('Download statement')} icon="download" variant="outline" testID="statement-open" onPress={() => setStatementOpen(true)} /> : undefined
      }
    >
      <View style={styles.toolbar}>
        <Text variant="muted" testID="history-scope">
          {accountId ? t('Account {{number}}', { number: accountId }) : t('All accounts')}
        </Text>
        <View style={styles.filter}>
          <Select<Filter>
            label={t('Transaction type')}
            options={FILTERS()}
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
        loadingText={t('Loading transactions...')}
        error={history.isError && !history.data ? texts.transactionsLoadFailed() : null}
        emptyText={t('No transactions found.')}
        virtualized
        footer={
          <>
            {history.hasNextPage ? (
              <Button
                title={t('Load more')}
                variant="outline"
                testID="history-load-more"
                loading={history.isFetchingNextPage}
                onPress={() => void history.fetchNextPage()}
                style={styles.more}
              />
            ) : null}
            {history.isFetchNextPageError ? (
              <Text variant="muted" role="alert">
                {texts.transactionsLoadFailed()}
              </Text>
            ) : null}
          </>
        }
      />
      {admin ? (
        <ReverseDialog
          tx={reversing}
          currency={reversing ? currencyOf(accounts.data, reversing.account_id, reversing.to_account_id) : BASE_CURRENCY}
          onClose={() => setReversing(null)}
        />
      ) : null}
      {customer ? <StatementModal visible={statementOpen} onClose={() => setStatementOpen(false)} account={accountId} /> : null}
    </Screen>
  );
}

const styles = StyleSheet.create({
  toolbar: { flexDirection: 'row', flexWrap: 'wrap', alignItems: 'flex-end', justifyContent: 'space-between', gap: spacing.md },
  filter: { minWidth: 200, flexGrow: 0 },
  more: { alignSelf: 'center', marginVertical: spacing.md },
});
