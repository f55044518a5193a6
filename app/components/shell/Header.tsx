import { Pressable, StyleSheet, TextInput, View } from 'react-native';

import type { User } from '../../services/api/types';
import { fontSize, layout, radius, spacing, useTheme } from '../../theme';
import { initials } from '../../utils/format';
import { Icon } from '../Icon';
import { IconButton } from '../IconButton';
import { Text } from '../Text';
import { webData } from '../webData';
import { t } from '../../i18n';

export interface HeaderProps {
  user: User | null;
  newCount: number;
  /** The live-notification connection state (data-live on the web). */
  live?: string;
  onToggleSidebar: () => void;
  onOpenNotifications: () => void;
  onOpenProfile: () => void;
}

/** The 60px top bar. */
export function Header({ user, newCount, live = 'off', onToggleSidebar, onOpenNotifications, onOpenProfile }: HeaderProps) {
  const { colors, scheme, toggle } = useTheme();
  return (
    <View
      testID="header"
      role="banner"
      style={[styles.header, { height: layout.headerHeight, backgroundColor: colors.surface, borderColor: colors.border }]}
    >
      <IconButton icon="menu" accessibilityLabel={t('Toggle sidebar')} testID="sidebar-toggle" onPress={onToggleSidebar} />
      <View style={[styles.search, { borderColor: colors.border, backgroundColor: colors.input }]}>
        <Icon name="search" size={16} color={colors.textMuted} />
        <TextInput
          testID="header-search"
          accessibilityLabel={t('Search')}
          placeholder={t('Search...')}
          placeholderTextColor={colors.textMuted}
          inputMode="search"
          style={[styles.searchInput, { color: colors.text }]}
        />
      </View>
      <View style={styles.actions}>
        <IconButton
          icon={scheme === 'dark' ? 'sun' : 'moon'}
          accessibilityLabel={scheme === 'dark' ? t('Switch to light theme') : t('Switch to dark theme')}
          testID="theme-toggle"
          onPress={toggle}
        />
        <IconButton
          icon="bell"
          accessibilityLabel={newCount > 0 ? t('Notifications, {{count}} unread', { count: newCount > 99 ? '99+' : String(newCount) }) : t('Notifications')}
          testID="notifications-button"
          onPress={onOpenNotifications}
          {...webData({ live })}
        >
          {newCount > 0 ? (
            <View
              testID="notifications-badge"
              style={[styles.badge, { backgroundColor: colors.danger, borderColor: colors.surface }]}
            >
              <Text style={[styles.badgeText, { color: colors.onDanger }]}>{newCount > 99 ? '99+' : String(newCount)}</Text>
            </View>
          ) : null}
        </IconButton>
        <Pressable
          testID="profile-button"
          accessibilityRole="button"
          accessibilityLabel={t('{{initials}} – open profile menu', { initials: initials(user?.full_name) })}
          onPress={onOpenProfile}
          style={[styles.avatar, { backgroundColor: colors.primaryMuted }]}
        >
          <Text style={[styles.avatarText, { color: colors.primary }]}>{initials(user?.full_name)}</Text>
        </Pressable>
      </View>
    </View>
  );
}

const styles = StyleSheet.create({
  header: {
    flexDirection: 'row',
    alignItems: 'center',
    gap: spacing.sm,
    paddingHorizontal: spacing.sm,
    borderBottomWidth: 1,
  },
  search: {
    flex: 1,
    minWidth: 0,
    maxWidth: 420,
    height: 36,
    flexDirection: 'row',
    alignItems: 'center',
    gap: spacing.xs,
    borderWidth: 1,
    borderRadius: radius.md,
    paddingHorizontal: spacing.sm,
  },
  searchInput: { flex: 1, minWidth: 0, height: 34, fontSize: fontSize.sm, paddingVertical: 0 },
  actions: { flexDirection: 'row', alignItems: 'center', gap: 2, marginLeft: 'auto' },
  badge: {
    position: 'absolute',
    top: 2,
    right: 2,
    minWidth: 18,
    height: 18,
    borderRadius: 9,
    paddingHorizontal: 4,
    alignItems: 'center',
    justifyContent: 'center',
    borderWidth: 2,
  },
  badgeText: { fontSize: fontSize.tiny, fontWeight: '700', lineHeight: 12 },
  avatar: { width: 36, height: 36, borderRadius: 18, alignItems: 'center', justifyContent: 'center', marginLeft: spacing.xs },
  avatarText: { fontWeight: '700', fontSize: fontSize.sm },
});
