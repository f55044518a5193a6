import { useErrorToast } from '../../hooks/useErrorToast';
import { limitFor, useDailyLimits } from '../../services/api/limits';
import { formatMoney } from '../../utils/format';
import { Text } from '../Text';
import { t } from '../../i18n';

/** "Used today: €X of €Y" for one currency (GET /api/user/limits); nothing until a currency is known. */
export function DailyLimitLine({ currency, testID = 'daily-limit-used' }: { currency: string | undefined; testID?: string }) {
  const limits = useDailyLimits(!!currency);
  useErrorToast(limits.error, limits.errorUpdatedAt, t('Failed to fetch your daily limit'));
  const row = limitFor(limits.data, currency);
  if (!currency || !row) return null;
  return (
    <Text variant="muted" testID={testID} accessibilityLiveRegion="polite">
      {t('Used today: {{used}} of {{limit}}', { used: formatMoney(row.used_today, row.currency), limit: formatMoney(row.daily_transfer_limit, row.currency) })}
    </Text>
  );
}
