import { ScrollView, StyleSheet, View, useWindowDimensions } from 'react-native';

import { useNotificationCenter } from '../../state/NotificationsProvider';
import { layout, spacing, useTheme } from '../../theme';
import { Button } from '../Button';
import { NotificationRow } from '../NotificationRow';
import { Popover } from '../Popover';
import { Text } from '../Text';
import { t } from '../../i18n';

export interface NotificationsMenuProps {
  visible: boolean;
  onClose: () => void;
  onViewAll: () => void;
}

/** The header's notifications panel (400px): first 5, pushed first; click marks read. */
export function NotificationsMenu({ visible, onClose, onViewAll }: NotificationsMenuProps) {
  const { colors } = useTheme();
  const { height } = useWindowDimensions();
  const { panelItems, newCount, markRead } = useNotificationCenter();
  const now = Date.now();
  return (
    <Popover
      visible={visible}
      onClose={onClose}
      top={layout.headerHeight - 4}
      right={8}
      width={layout.notificationsPanelWidth}
      testID="notifications-panel"
      accessibilityLabel={t('Notifications')}
    >
      <View style={[styles.header, { borderColor: colors.border }]}>
        <Text variant="subtitle" role="heading" aria-level={2}>
          {t('Notifications')}
        </Text>
      </View>
      <ScrollView style={{ maxHeight: height * 0.5 }}>
        {panelItems.length === 0 ? (
          <Text variant="muted" style={styles.empty} testID="notifications-empty">
            {t('No notifications found')}
          </Text>
        ) : (
          panelItems.map((n) => (
            <NotificationRow
              key={String(n.id)}
              item={n}
              now={now}
              variant="panel"
              onPress={(item) => markRead(item.id)}
              testID="notification-item"
            />
          ))
        )}
      </ScrollView>
      <View style={[styles.footer, { borderColor: colors.border }]}>
        <Button
          title={t('View All Notifications')}
          variant="outline"
          size="sm"
          testID="notifications-view-all"
          onPress={onViewAll}
          fullWidth
        />
        <Text variant="small" style={styles.count} testID="notifications-count">
          {t('You have {{count}} new notifications', { count: newCount })}
        </Text>
      </View>
    </Popover>
  );
}

const styles = StyleSheet.create({
  header: { paddingHorizontal: spacing.lg, paddingVertical: spacing.md, borderBottomWidth: 1 },
  empty: { padding: spacing.lg, textAlign: 'center' },
  footer: { padding: spacing.md, borderTopWidth: 1, gap: spacing.sm },
  count: { textAlign: 'center' },
});
