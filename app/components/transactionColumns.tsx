import type { Column } from './DataTable';
import { TransactionTypeBadge } from './StatusBadge';
import { t } from '../i18n';
import type { Account, Transaction } from '../services/api/types';
import { currencyOf, datePart, formatMoney } from '../utils/format';

export type TransactionColumn = 'date' | 'type' | 'amount' | 'from' | 'to' | 'description';

/**
 * The columns of a history table, in the order asked (spec §2: the
 * dashboard's and Transfer Funds' Date, Type, Amount, From Account, To
 * Account, Description; Transaction History's own order). Amounts are in
 * the currency of the caller's account on either side.
 */
export function transactionColumns(accounts: Account[] | undefined, keys: TransactionColumn[]): Column<Transaction>[] {
  const all: Record<TransactionColumn, Column<Transaction>> = {
    date: { key: 'date', title: t('Date'), render: (tx) => datePart(tx.transaction_date) },
    type: { key: 'type', title: t('Type'), render: (tx) => <TransactionTypeBadge type={tx.transaction_type} /> },
    amount: { key: 'amount', title: t('Amount'), render: (tx) => formatMoney(tx.amount, currencyOf(accounts, tx.account_id, tx.to_account_id)) },
    from: { key: 'from', title: t('From Account'), render: (tx) => tx.account_id },
    to: { key: 'to', title: t('To Account'), render: (tx) => tx.to_account_id },
    description: { key: 'description', title: t('Description'), flex: 1.5, render: (tx) => tx.description ?? '' },
  };
  return keys.map((k) => all[k]);
}

/** The dashboard's and Transfer Funds' order. */
export const HISTORY_COLUMNS: TransactionColumn[] = ['date', 'type', 'amount', 'from', 'to', 'description'];
