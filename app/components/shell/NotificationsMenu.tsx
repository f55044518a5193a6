import type { PressState } from '../pressState';
import { Pressable, ScrollView, StyleSheet, View, useWindowDimensions } from 'react-native';

import { useNotificationCenter } from '../../state/NotificationsProvider';
import { layout, spacing, useTheme } from '../../theme';
import { formatRelativeTime } from '../../utils/relativeTime';
import { Badge } from '../Badge';
import { Button } from '../Button';
import { Popover } from '../Popover';
import { Text } from '../Text';

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
      accessibilityLabel="Notifications"
    >
      <View style={[styles.header, { borderColor: colors.border }]}>
        <Text variant="subtitle" role="heading" aria-level={2}>
          Notifications
        </Text>
      </View>
      <ScrollView style={{ maxHeight: height * 0.5 }}>
        {panelItems.length === 0 ? (
          <Text variant="muted" style={styles.empty} testID="notifications-empty">
            No notifications found
          </Text>
        ) : (
          panelItems.map((n) => (
            <Pressable
              key={String(n.id)}
              testID="notification-item"
              role="menuitem"
              aria-label={n.message}
              onPress={() => markRead(n.id)}
              style={({ hovered }: PressState) => [
                styles.item,
                { borderColor: colors.border },
                n.isNew && { backgroundColor: colors.primaryMuted + '55' },
                hovered && { backgroundColor: colors.surfaceMuted },
              ]}
            >
              <View style={styles.itemTop}>
                <Text variant="muted" style={[styles.message, { color: colors.text }]}>
                  {n.message}
                </Text>
                {n.isNew ? <Badge label="New" tone="info" testID="notification-new-badge" /> : null}
              </View>
              <Text variant="small">{formatRelativeTime(n.createdAt, now)}</Text>
            </Pressable>
          ))
        )}
      </ScrollView>
      <View style={[styles.footer, { borderColor: colors.border }]}>
        <Button
          title="View All Notifications"
          variant="outline"
          size="sm"
          testID="notifications-view-all"
          onPress={onViewAll}
          fullWidth
        />
        <Text variant="small" style={styles.count} testID="notifications-count">
          {`You have ${newCount} new notifications`}
        </Text>
      </View>
    </Popover>
  );
}

const styles = StyleSheet.create({
  header: { paddingHorizontal: spacing.lg, paddingVertical: spacing.md, borderBottomWidth: 1 },
  empty: { padding: spacing.lg, textAlign: 'center' },
  item: { paddingHorizontal: spacing.lg, paddingVertical: spacing.md, borderBottomWidth: StyleSheet.hairlineWidth, gap: 4 },
  itemTop: { flexDirection: 'row', alignItems: 'flex-start', gap: spacing.sm, justifyContent: 'space-between' },
  message: { flexShrink: 1 },
  footer: { padding: spacing.md, borderTopWidth: 1, gap: spacing.sm },
  count: { textAlign: 'center' },
});
