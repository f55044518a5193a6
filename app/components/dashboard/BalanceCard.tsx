import { useLinkProps } from '@react-navigation/native';
import { useState } from 'react';
import { StyleSheet, Text as RNText } from 'react-native';

import type { Account } from '../../services/api/types';
import { fontSize, useTheme } from '../../theme';
import { balancesByCurrency, formatMoney } from '../../utils/format';
import { Select } from '../Select';
import { Text } from '../Text';
import { StatCard } from './StatCard';
import { t } from '../../i18n';

function AccountLink({ accountNumber }: { accountNumber: string }) {
  const { colors } = useTheme();
  const link = useLinkProps({
    screen: 'App',
    params: { screen: 'TransactionHistory', params: { account_id: accountNumber } },
  });
  return (
    <RNText
      {...link}
      testID="dashboard-account-link"
      accessibilityLabel={t('Transaction history of account {{number}}', { number: accountNumber })}
      style={[styles.link, { color: colors.primary }]}
    >
      {accountNumber}
    </RNText>
  );
}

/**
 * 'Account Balance' (or 'System Balance'): the sum of all balances in each
 * currency ('$1,250.60 · €308.00'), or the selected account's balance in its
 * currency, with its number linking to its history.
 */
export function BalanceCard({
  title,
  accounts,
  loading,
  error,
  home,
}: {
  title: string;
  accounts: Account[] | undefined;
  loading: boolean;
  error: boolean;
  /** Every balance converted into the customer's home currency (approximate; none when a rate is missing). */
  home?: { total: number; currency: string } | null;
}) {
  const { colors } = useTheme();
  const [selected, setSelected] = useState<string | null>(null);
  const account = accounts?.find((a) => a.account_number === selected);
  // Dollars and euros are never added: one total per currency, or the selected account's.
  const totals = account ? [{ currency: account.currency, total: Number(account.balance) }] : balancesByCurrency(accounts);
  const shown = totals.length ? totals.map((t) => formatMoney(t.total, t.currency)).join(' · ') : formatMoney(0);
  return (
    <StatCard title={title}>
      <Select<string>
        placeholder={t('Select an account')}
        options={(accounts ?? []).map((a) => ({ label: a.account_number, value: a.account_number }))}
        value={account ? account.account_number : null}
        onChange={setSelected}
        testID="dashboard-account-select"
        disabled={loading || error}
      />
      {error ? (
        <Text variant="muted" role="alert" style={{ color: colors.danger }}>
          {t('Failed to load accounts')}
        </Text>
      ) : (
        <Text variant="title" testID="dashboard-balance">
          {loading ? '…' : shown}
        </Text>
      )}
      {!account && !error && home ? (
        <Text
          variant="muted"
          testID="dashboard-balance-home"
          accessibilityLabel={t('About {{amount}} in all, in {{currency}} at current rates', { amount: formatMoney(home.total, home.currency), currency: home.currency })}
        >
          {`≈ ${formatMoney(home.total, home.currency)}`}
        </Text>
      ) : null}
      {account ? <AccountLink accountNumber={account.account_number} /> : null}
    </StatCard>
  );
}

const styles = StyleSheet.create({
  link: { textDecorationLine: 'underline', fontSize: fontSize.sm, alignSelf: 'flex-start' },
});
