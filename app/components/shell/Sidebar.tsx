import type { PressState } from '../pressState';
import { Platform, Pressable, ScrollView, StyleSheet, View, type GestureResponderEvent } from 'react-native';

import { hrefFor, type AppRouteName } from '../../navigators/routes';
import { usePendingApprovalsCount } from '../../services/api/approvals';
import type { Role } from '../../services/api/types';
import { visibleSidebarGroups } from '../../state/sidebar';
import { fontSize, layout, radius, spacing, useTheme } from '../../theme';
import { Badge } from '../Badge';
import { Icon, type IconName } from '../Icon';
import { Text } from '../Text';
import { Logo } from './Logo';
import { webData } from '../webData';
import { t } from '../../i18n';

export interface SidebarProps {
  open: boolean;
  width: number;
  role: Role | null | undefined;
  activeRoute: AppRouteName;
  onNavigate: (route: AppRouteName) => void;
}

/** The grouped navigation (labels when expanded, icons only when collapsed). */
export function Sidebar({ open, width, role, activeRoute, onNavigate }: SidebarProps) {
  const { colors } = useTheme();
  const groups = visibleSidebarGroups(role);
  // Four eyes: what waits for an administrator's decision, on the Approvals link.
  const pending = usePendingApprovalsCount(role === 'Admin');
  return (
    <View
      testID="sidebar"
      role="navigation"
      aria-label={t('Main')}
      {...webData({ state: open ? 'expanded' : 'collapsed' })}
      style={[styles.sidebar, { width, backgroundColor: colors.sidebar, borderColor: colors.border }]}
    >
      <View style={[styles.logo, { height: layout.headerHeight, borderColor: colors.border }, !open && styles.logoCollapsed]}>
        <Logo showName={open} />
      </View>
      <ScrollView contentContainerStyle={styles.groups}>
        {groups.map((group) => (
          <View key={group.title} style={styles.group} testID={`sidebar-group-${group.title.toLowerCase()}`}>
            {open ? (
              <Text variant="small" style={styles.groupTitle}>
                {group.title.toUpperCase()}
              </Text>
            ) : (
              <View style={[styles.divider, { backgroundColor: colors.border }]} />
            )}
            {group.links.map((link) => {
              const active = link.route === activeRoute;
              const count = link.route === 'Approvals' && pending ? pending : 0;
              const onPress = (e: GestureResponderEvent) => {
                const ev = e as unknown as { metaKey?: boolean; ctrlKey?: boolean; shiftKey?: boolean; preventDefault?: () => void };
                if (Platform.OS === 'web') {
                  if (ev.metaKey || ev.ctrlKey || ev.shiftKey) return; // let the browser open a new tab
                  ev.preventDefault?.();
                }
                onNavigate(link.route);
              };
              return (
                <Pressable
                  key={link.route}
                  testID={link.testID}
                  role="link"
                  {...(Platform.OS === 'web' ? ({ href: hrefFor(link.route) } as object) : {})}
                  accessibilityLabel={count ? t('{{label}}, {{count}} pending', { label: link.label, count }) : link.label}
                  // The current page: aria-current on the web; Android/iOS have no such state, so 'selected'.
                  {...(Platform.OS === 'web' ? { 'aria-current': active ? 'page' : undefined } : { accessibilityState: { selected: active } })}
                  onPress={onPress}
                  style={({ hovered }: PressState) => [
                    styles.link,
                    !open && styles.linkCollapsed,
                    (active || hovered) && { backgroundColor: active ? colors.sidebarActive : colors.surfaceMuted },
                  ]}
                >
                  <Icon name={link.icon as IconName} size={20} color={active ? colors.primary : colors.sidebarText} />
                  {open ? (
                    <Text numberOfLines={1} style={[styles.linkLabel, { color: active ? colors.primary : colors.sidebarText }]}>
                      {link.label}
                    </Text>
                  ) : null}
                  {count ? <Badge label={count} tone="warning" testID={`${link.testID}-count`} style={open ? styles.count : styles.countCollapsed} /> : null}
                </Pressable>
              );
            })}
          </View>
        ))}
      </ScrollView>
    </View>
  );
}

const styles = StyleSheet.create({
  sidebar: { height: '100%', borderRightWidth: 1 },
  logo: { justifyContent: 'center', paddingHorizontal: spacing.lg, borderBottomWidth: 1 },
  logoCollapsed: { alignItems: 'center', paddingHorizontal: 0 },
  groups: { paddingVertical: spacing.md, gap: spacing.md },
  group: { gap: 2, paddingHorizontal: spacing.sm },
  groupTitle: { paddingHorizontal: spacing.sm, paddingVertical: spacing.xs, fontWeight: '700', letterSpacing: 0.5 },
  divider: { height: 1, marginHorizontal: spacing.sm, marginVertical: spacing.xs },
  link: {
    flexDirection: 'row',
    alignItems: 'center',
    gap: spacing.md,
    paddingHorizontal: spacing.md,
    paddingVertical: 10,
    borderRadius: radius.md,
  },
  linkCollapsed: { justifyContent: 'center', paddingHorizontal: 0 },
  linkLabel: { fontSize: fontSize.sm, fontWeight: '500', flexShrink: 1 },
  count: { marginLeft: 'auto' },
  countCollapsed: { position: 'absolute', top: 2, right: 6 },
});
