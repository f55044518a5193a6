import type { CurrencyTotals as Totals } from '../../services/api/types';
import { formatMoney } from '../../utils/format';
import { Card } from '../Card';
import { DataTable, type Column } from '../DataTable';
import { t } from '../../i18n';

const columns = (): Column<Totals>[] =>
  [
  { key: 'currency', title: t('Currency'), render: (c) => c.currency },
  { key: 'balance', title: t('Balance'), render: (c) => formatMoney(c.total_balance, c.currency) },
  { key: 'sent', title: t('Sent'), render: (c) => formatMoney(c.total_sent_amount, c.currency) },
  { key: 'received', title: t('Received'), render: (c) => formatMoney(c.total_received_amount, c.currency) },
];

/**
 * The dashboard's money figures in each currency (the summary's
 * `by_currency`): the cards above count the base currency only, so every
 * other currency a customer holds (or the bank offers) shows here, a row
 * each, in its own symbol. Nothing when the summary has no currency.
 */
export function CurrencyTotals({ totals }: { totals: Totals[] | undefined }) {
  if (!totals?.length) return null;
  return (
    <Card title={t('By Currency')} testID="dashboard-currencies">
      <DataTable
        testID="dashboard-currency-table"
        columns={columns()}
        data={totals}
        keyExtractor={(c) => c.currency}
      />
    </Card>
  );
}
