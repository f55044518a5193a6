import { useState } from 'react';
import { View } from 'react-native';

import { useErrorToast } from '../../hooks/useErrorToast';
import { errorMessage } from '../../services/api/client';
import { useConnectedApps, useDisconnectApp } from '../../services/api/programs';
import type { ConnectedApp } from '../../services/api/types';
import { useSession } from '../../state/session';
import { toast } from '../../state/toast';
import { useThemedStyles } from '../../theme';
import { listRow } from './listRow';
import { formatFullDate } from '../../utils/relativeTime';
import { scopeLabel } from '../../utils/scopes';
import { Button } from '../Button';
import { Card } from '../Card';
import { Text } from '../Text';
import { t } from '../../i18n';

/** The apps a customer connected (OAuth grants): what each may do and see, and Disconnect. */
export function ConnectedAppsCard() {
  const styles = useThemedStyles(themed);
  const customer = useSession((s) => s.user?.role === 'User');
  const apps = useConnectedApps(customer);
  const disconnect = useDisconnectApp();
  const [busyId, setBusyId] = useState<number | null>(null);
  useErrorToast(apps.error, apps.errorUpdatedAt, (err) => errorMessage(err, t('Failed to fetch connected apps')));
  if (!customer) return null;

  const rows = Array.isArray(apps.data) ? apps.data : [];
  const onDisconnect = (a: ConnectedApp) => {
    setBusyId(a.id);
    disconnect.mutate(a.id, {
      onSuccess: () => toast.success(t('{{app}} is disconnected', { app: a.client_name })),
      onError: (err) => toast.error(errorMessage(err, t('Failed to disconnect the app'))),
      onSettled: () => setBusyId(null),
    });
  };
  return (
    <Card title={t('Connected apps')} testID="connected-apps-card">
      <Text variant="muted">{t('Apps you allowed to use your accounts. Disconnecting one stops it at once.')}</Text>
      {apps.isPending ? (
        <Text variant="muted">{t('Loading connected apps...')}</Text>
      ) : rows.length === 0 ? (
        <Text variant="muted" testID="connected-apps-empty">
          {t('No connected apps.')}
        </Text>
      ) : (
        <View role="list" aria-label={t('Connected apps')}>
          {rows.map((a) => (
            <View key={a.id} role="listitem" style={styles.item} testID={`connected-app-${a.id}`}>
              <View style={styles.info}>
                <Text variant="label">{a.client_name}</Text>
                {a.scopes.map((s) => (
                  <Text key={s.scope} variant="small">
                    {scopeLabel(s.scope, s.description)}
                  </Text>
                ))}
                <Text variant="small">
                  {a.accounts.length
                    ? t('Accounts: {{accounts}} · connected {{date}}', { accounts: a.accounts.join(', '), date: formatFullDate(new Date(a.created_at)) })
                    : t('Accounts: none · connected {{date}}', { date: formatFullDate(new Date(a.created_at)) })}
                </Text>
              </View>
              <Button
                title={t('Disconnect')}
                size="sm"
                variant="outline"
                loading={busyId === a.id}
                accessibilityLabel={t('Disconnect {{app}}', { app: a.client_name })}
                onPress={() => onDisconnect(a)}
                testID={`connected-app-disconnect-${a.id}`}
              />
            </View>
          ))}
        </View>
      )}
    </Card>
  );
}

const themed = listRow;
