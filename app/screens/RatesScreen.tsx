import { useState } from 'react';

import { Button, Card, DataTable, Screen, Text, type Column } from '../components';
import { FxRateForm, type FxPair } from '../components/admin/FxRateForm';
import { InterestRateModal } from '../components/admin/InterestRateModal';
import { useErrorToast } from '../hooks/useErrorToast';
import { useAdminAccountTypes } from '../services/api/accounts';
import { useFxRates } from '../services/api/fx';
import type { AdminAccountType, FxRate } from '../services/api/types';
import { formatInterestRate, formatRate, localDateTimeText } from '../utils/format';
import { t } from '../i18n';
import { texts } from '../i18n/texts';

/**
 * Rates (Admin, contract §8): the exchange rates an admin set, a form to set
 * a pair, and the account types with their interest rates.
 */
export default function RatesScreen() {
  const rates = useFxRates();
  const types = useAdminAccountTypes();
  const [editPair, setEditPair] = useState<FxPair | null>(null);
  const [editType, setEditType] = useState<AdminAccountType | null>(null);
  useErrorToast(rates.error, rates.errorUpdatedAt, t('Failed to fetch exchange rates'));
  useErrorToast(types.error, types.errorUpdatedAt, texts.accountTypesFailed());

  const rateColumns: Column<FxRate>[] = [
    { key: 'pair', title: t('Pair'), render: (r) => `${r.base}/${r.quote}` },
    { key: 'rate', title: t('Rate'), render: (r) => t('1 {{from}} = {{rate}} {{to}}', { from: r.base, rate: formatRate(r.rate), to: r.quote }) },
    { key: 'updated', title: t('Updated'), render: (r) => localDateTimeText(r.updated_at) },
    editColumn<FxRate>(
      (r) => `fx-rate-edit-${r.base}-${r.quote}`,
      (r) => t('Edit the rate {{base}}/{{quote}}', { base: r.base, quote: r.quote }),
      (r) => setEditPair({ base: r.base, quote: r.quote, rate: String(r.rate) }),
    ),
  ];

  const typeColumns: Column<AdminAccountType>[] = [
    { key: 'type', title: t('Account Type'), render: (a) => a.type_name },
    { key: 'currency', title: t('Currency'), flex: 0.6, render: (a) => a.currency },
    { key: 'rate', title: t('Interest rate'), render: (a) => t('{{rate}} % a year', { rate: formatInterestRate(a.interest_rate) }) },
    editColumn<AdminAccountType>(
      (a) => `interest-rate-edit-${a.id}`,
      (a) => t('Edit the interest rate of {{type}}', { type: a.type_name }),
      setEditType,
    ),
  ];

  return (
    <Screen title={t('Rates')} testID="screen-rates">
      <Card title={t('Exchange rates')} testID="fx-rates">
        <Text variant="muted">{t('Customers exchange at these rates, less the bank\'s spread. The inverse of each pair is derived.')}</Text>
        <FxRateForm initial={editPair} />
        <DataTable
          testID="fx-rates-table"
          columns={rateColumns}
          data={rates.isError ? [] : rates.data}
          keyExtractor={(r) => `${r.base}-${r.quote}`}
          loading={rates.isPending}
          loadingText={t('Loading rates...')}
          error={rates.isError ? t('Failed to load exchange rates') : null}
          emptyText={t('No exchange rates set yet.')}
        />
      </Card>
      <Card title={t('Interest rates')} testID="interest-rates">
        <DataTable
          testID="interest-rates-table"
          columns={typeColumns}
          data={types.isError ? [] : types.data}
          keyExtractor={(a) => String(a.id)}
          loading={types.isPending}
          loadingText={t('Loading account types...')}
          emptyText={t('No account types.')}
        />
      </Card>
      <InterestRateModal type={editType} onClose={() => setEditType(null)} />
    </Screen>
  );
}

/** A column with a row's Edit button. */
function editColumn<T>(testID: (row: T) => string, label: (row: T) => string, onEdit: (row: T) => void): Column<T> {
  return {
    key: 'edit',
    title: t('Action'),
    flex: 0.7,
    render: (row) => <Button title={t('Edit')} variant="outline" size="sm" testID={testID(row)} accessibilityLabel={label(row)} onPress={() => onEdit(row)} />,
  };
}
