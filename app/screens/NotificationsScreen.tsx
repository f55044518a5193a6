import { useEffect, useState } from 'react';
import { StyleSheet, View } from 'react-native';

import { Card, Loading, Screen, Tabs, Text, type TabItem } from '../components';
import { NotificationRow } from '../components/NotificationRow';
import type { NotificationFilter } from '../services/api/types';
import { useNotificationCenter } from '../state/NotificationsProvider';
import { spacing, useTheme } from '../theme';
import { t } from '../i18n';

const TABS = (): TabItem<NotificationFilter>[] =>
  [
  { key: 'all', label: t('All'), testID: 'notifications-tab-all' },
  { key: 'requests', label: t('Requests'), testID: 'notifications-tab-requests' },
  { key: 'alerts', label: t('Alerts'), testID: 'notifications-tab-alerts' },
];

const MINUTE = 60_000;

/** 'N minutes ago' keeps moving while the page is open. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), MINUTE);
    return () => clearInterval(t);
  }, []);
  return now;
}

/** All notifications (stored and live), filtered by tab; clicking one marks it read. */
export default function NotificationsScreen() {
  const { colors } = useTheme();
  const { filter, filteredItems, loading, error, markRead, setFilter, refetch } = useNotificationCenter();
  const now = useNow();

  // The stored list may be older than this visit: fetch it again.
  useEffect(() => {
    refetch();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const count = filteredItems.length;
  let body;
  if (loading && count === 0) {
    body = <Loading text={t('Loading notifications...')} testID="notifications-loading" />;
  } else if (error && count === 0) {
    body = (
      <Text role="alert" style={{ color: colors.danger }} testID="notifications-error">
        {error}
      </Text>
    );
  } else if (count === 0) {
    body = (
      <Text variant="muted" testID="notifications-empty" style={styles.empty}>
        {t('No notifications found')}
      </Text>
    );
  } else {
    body = (
      <View style={styles.list} role="list">
        {filteredItems.map((n) => (
          <View key={String(n.id)} role="listitem">
            <NotificationRow item={n} now={now} onPress={(item) => markRead(item.id)} testID="notification-row" />
          </View>
        ))}
      </View>
    );
  }

  return (
    <Screen title={t('Notifications')} testID="screen-notifications">
      <Card>
        <View style={styles.header}>
          <Tabs<NotificationFilter>
            tabs={TABS()}
            value={filter}
            onChange={setFilter}
            accessibilityLabel={t('Filter notifications')}
            style={styles.tabs}
          />
          <Text variant="muted" testID="notifications-total" accessibilityLiveRegion="polite">
            {t('{{count}} notifications', { count })}
          </Text>
        </View>
        {error && count > 0 ? (
          <Text role="alert" style={{ color: colors.danger }} testID="notifications-error">
            {error}
          </Text>
        ) : null}
        {body}
      </Card>
    </Screen>
  );
}

const styles = StyleSheet.create({
  header: { flexDirection: 'row', flexWrap: 'wrap', alignItems: 'center', justifyContent: 'space-between', gap: spacing.md },
  tabs: { flexGrow: 1, flexBasis: 260, maxWidth: 420 },
  list: { gap: spacing.sm },
  empty: { paddingVertical: spacing.xl, textAlign: 'center' },
});
