import { Pressable, StyleSheet, View } from 'react-native';

import type { ClientNotification } from '../state/notifications';
import { radius, spacing, useTheme } from '../theme';
import { formatRelativeTime } from '../utils/relativeTime';
import { Badge } from './Badge';
import type { PressState } from './pressState';
import { Text } from './Text';
import { t } from '../i18n';

export interface NotificationRowProps {
  item: ClientNotification;
  /** Reference time for 'N minutes ago'. */
  now: number;
  onPress: (item: ClientNotification) => void;
  /** 'panel': a menu item of the header's dropdown; 'page': a card of /notifications. */
  variant?: 'panel' | 'page';
  testID?: string;
}

/**
 * One notification, in the header panel and on /notifications alike: the
 * message, a 'New' badge while unread, and its relative time. Pressing it marks it read.
 */
export function NotificationRow({ item, now, onPress, variant = 'page', testID }: NotificationRowProps) {
  const { colors } = useTheme();
  const panel = variant === 'panel';
  return (
    <Pressable
      testID={testID}
      role={panel ? 'menuitem' : 'button'}
      aria-label={panel ? item.message : undefined}
      accessibilityHint={item.isNew ? t('Marks the notification as read') : undefined}
      onPress={() => onPress(item)}
      style={({ hovered, pressed }: PressState) => [
        panel ? styles.panelRow : styles.pageRow,
        { borderColor: colors.border, backgroundColor: item.isNew && panel ? colors.surfaceAccent : colors.surface },
        !panel && item.isNew && { borderLeftColor: colors.primary },
        (hovered || pressed) && { backgroundColor: colors.surfaceMuted },
      ]}
    >
      <View style={styles.top}>
        <Text variant={panel ? 'muted' : 'body'} style={[styles.message, { color: colors.text }, item.isNew && !panel && styles.unread]}>
          {item.message}
        </Text>
        {item.isNew ? <Badge label={t('New')} tone="info" testID="notification-new-badge" /> : null}
      </View>
      <Text variant={panel ? 'small' : 'muted'} testID="notification-time">
        {formatRelativeTime(item.createdAt, now)}
      </Text>
    </Pressable>
  );
}

const styles = StyleSheet.create({
  pageRow: { borderWidth: 1, borderLeftWidth: 4, borderRadius: radius.md, padding: spacing.md, gap: spacing.xs },
  panelRow: { paddingHorizontal: spacing.lg, paddingVertical: spacing.md, borderBottomWidth: StyleSheet.hairlineWidth, gap: spacing.xs },
  top: { flexDirection: 'row', alignItems: 'flex-start', justifyContent: 'space-between', gap: spacing.sm },
  message: { flexShrink: 1 },
  unread: { fontWeight: '600' },
});
