import type { PressState } from './pressState';
import { Pressable, StyleSheet, View } from 'react-native';

import type { ClientNotification } from '../state/notifications';
import { spacing, useTheme } from '../theme';
import { formatRelativeTime } from '../utils/relativeTime';
import { Text } from './Text';

export interface NotificationRowProps {
  item: ClientNotification;
  /** Reference time for 'N minutes ago'. */
  now: number;
  onPress: (item: ClientNotification) => void;
  testID?: string;
}

/** One notification in the full list: the message, a 'New' badge while unread, and its relative time. Pressing it marks it read. */
export function NotificationRow({ item, now, onPress, testID }: NotificationRowProps) {
  const { colors } = useTheme();
  const time = formatRelativeTime(item.createdAt, now);
  return (
    <Pressable
      testID={testID}
      accessibilityRole="button"
      accessibilityHint={item.isNew ? 'Marks the notification as read' : undefined}
      onPress={() => onPress(item)}
      style={({ hovered, pressed }: PressState) => [
        styles.row,
        { borderColor: colors.border, backgroundColor: colors.surface },
        item.isNew && { borderLeftColor: colors.primary },
        (hovered || pressed) && { backgroundColor: colors.surfaceMuted },
      ]}
    >
      <View style={styles.top}>
        <Text style={[styles.message, item.isNew && styles.unread]}>{item.message}</Text>
        {item.isNew ? (
          // Text colour on the muted primary: readable in both themes (the info Badge is not, in dark).
          <View testID="notification-new-badge" style={[styles.badge, { backgroundColor: colors.primaryMuted }]}>
            <Text style={[styles.badgeText, { color: colors.text }]}>New</Text>
          </View>
        ) : null}
      </View>
      <Text variant="muted" testID="notification-time">
        {time}
      </Text>
    </Pressable>
  );
}

const styles = StyleSheet.create({
  row: { borderWidth: 1, borderLeftWidth: 4, borderRadius: 8, padding: spacing.md, gap: spacing.xs },
  top: { flexDirection: 'row', alignItems: 'flex-start', justifyContent: 'space-between', gap: spacing.sm },
  message: { flexShrink: 1 },
  unread: { fontWeight: '600' },
  badge: { borderRadius: 999, paddingHorizontal: spacing.sm, paddingVertical: 2 },
  badgeText: { fontSize: 11, fontWeight: '700' },
});
