import { View, type ViewStyle } from 'react-native';

import { Card, Screen, Select, Text } from '../components';
import { useErrorToast } from '../hooks/useErrorToast';
import { errorMessage } from '../services/api/client';
import { CURRENCIES } from '../services/api/fx';
import { usePreferences, useSetHomeCurrency } from '../services/api/preferences';
import type { HomeCurrency } from '../services/api/types';
import { isAdmin, useSession } from '../state/session';
import { toast } from '../state/toast';
import { type ThemedStyle, useThemed } from '../theme';
import { t } from '../i18n';

/** Settings: the spec's heading; for a customer, the home currency (contract §8). */
export default function SettingsScreen() {
  const customer = useSession((s) => !!s.user && !isAdmin(s.user));
  return <Screen title={t('Settings')} testID="screen-settings">{customer ? <HomeCurrencyCard /> : null}</Screen>;
}

/** The currency the dashboard's approximate total of all balances is in (GET/PUT /api/user/preferences). */
function HomeCurrencyCard() {
  const themed = useThemed();
  const preferences = usePreferences();
  const save = useSetHomeCurrency();
  useErrorToast(preferences.error, preferences.errorUpdatedAt, t('Failed to fetch your preferences'));
  const choose = (currency: HomeCurrency | null) => {
    if (!currency || currency === preferences.data?.home_currency || save.isPending) return;
    save.mutate(currency, {
      onSuccess: () => toast.success(t('Home currency set to {{currency}}', { currency })),
      onError: (err) => toast.error(errorMessage(err, t('Failed to save the home currency'))),
    });
  };
  return (
    <Card title={t('Home currency')} testID="settings-home-currency">
      <Text variant="muted">{t('Your dashboard shows the approximate total of all your balances in this currency, at current exchange rates.')}</Text>
      <View style={themed($select)}>
        <Select<HomeCurrency>
          label={t('Home currency')}
          options={CURRENCIES.map((c) => ({ label: c, value: c }))}
          value={save.isPending ? save.variables : preferences.data?.home_currency ?? null}
          onChange={choose}
          disabled={preferences.isPending || save.isPending}
          testID="settings-home-currency-select"
        />
      </View>
    </Card>
  );
}

const $select: ThemedStyle<ViewStyle> = () => ({ maxWidth: 240 });
