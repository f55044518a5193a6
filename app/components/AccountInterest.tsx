import { View, type ViewStyle } from 'react-native';

import { useAccountInterest } from '../services/api/accounts';
import type { Account } from '../services/api/types';
import { datePart, formatAccrued, formatInterestRate } from '../utils/format';
import { type ThemedStyle, useThemed } from '../theme';
import { Text } from './Text';
import { t } from '../i18n';

/**
 * An account's interest (contract §8): for a type whose rate is above 0,
 * the rate, what accrued and is not paid yet (to the 1/10000 of a cent), and
 * the last payment: "2.00 % a year · accrued $0.123456", "Last paid 2026-05-01".
 * Nothing for a type without interest.
 */
export function AccountInterest({ account, typeRate }: { account: Account; typeRate: number | null | undefined }) {
  const themed = useThemed();
  const earns = typeof typeRate === 'number' && typeRate > 0;
  const interest = useAccountInterest(account.id, earns);
  if (!earns) return null;
  const id = `account-interest-${account.account_number}`;
  if (interest.isError) {
    return (
      <Text variant="small" testID={id}>
        {t('{{rate}} % a year', { rate: formatInterestRate(typeRate) })}
      </Text>
    );
  }
  if (!interest.data) return <Text variant="small">…</Text>;
  const { rate, accrued, last_posted_at: lastPaid } = interest.data;
  return (
    <View style={themed($stack)} testID={id}>
      <Text variant="small">
        {t('{{rate}} % a year · accrued {{accrued}}', { rate: formatInterestRate(rate), accrued: formatAccrued(accrued, account.currency) })}
      </Text>
      {lastPaid ? <Text variant="small">{t('Last paid {{date}}', { date: datePart(lastPaid) })}</Text> : null}
    </View>
  );
}

const $stack: ThemedStyle<ViewStyle> = () => ({ gap: 2 });
