import { useState, type ReactNode } from 'react';
import { Pressable, ScrollView, StyleSheet, View, useWindowDimensions } from 'react-native';
import { useSafeAreaInsets } from 'react-native-safe-area-context';

import type { AppRouteName } from '../../navigators/routes';
import type { User } from '../../services/api/types';
import { useNotificationCenter } from '../../state/NotificationsProvider';
import { SIDEBAR_COLLAPSED_WIDTH, useSidebar } from '../../state/sidebar';
import { useTheme } from '../../theme';
import { Footer } from './Footer';
import { Header } from './Header';
import { NotificationsMenu } from './NotificationsMenu';
import { PasswordResetModal } from './PasswordResetModal';
import { ProfileMenu } from './ProfileMenu';
import { Sidebar } from './Sidebar';

export interface ShellProps {
  user: User | null;
  activeRoute: AppRouteName;
  onNavigate: (route: AppRouteName) => void;
  onLogout: () => void;
  children: ReactNode;
}

/**
 * The signed-in layout: sidebar on the left (240/70px), header (60px) on top
 * of the content, which scrolls under the header and ends with the footer.
 */
export function Shell({ user, activeRoute, onNavigate, onLogout, children }: ShellProps) {
  const { colors } = useTheme();
  const { width } = useWindowDimensions();
  const insets = useSafeAreaInsets();
  const sidebar = useSidebar(width);
  const { newCount, connection } = useNotificationCenter();
  const [menu, setMenu] = useState<'none' | 'notifications' | 'profile'>('none');
  const [resetOpen, setResetOpen] = useState(false);

  const navigate = (route: AppRouteName) => {
    if (sidebar.narrow) sidebar.collapse();
    onNavigate(route);
  };

  const sidebarView = (
    <Sidebar open={sidebar.open} width={sidebar.width} role={user?.role} activeRoute={activeRoute} onNavigate={navigate} />
  );

  return (
    <View
      testID="shell"
      style={[styles.root, { backgroundColor: colors.background, paddingTop: insets.top, paddingBottom: insets.bottom }]}
    >
      {sidebar.narrow ? (
        // Narrow: a 70px rail keeps its place; the open sidebar overlays the content.
        <View style={{ width: SIDEBAR_COLLAPSED_WIDTH }} />
      ) : (
        sidebarView
      )}
      <View style={styles.main}>
        <Header
          user={user}
          newCount={newCount}
          live={connection}
          onToggleSidebar={sidebar.toggle}
          onOpenNotifications={() => setMenu('notifications')}
          onOpenProfile={() => setMenu('profile')}
        />
        <ScrollView testID="content" style={styles.content} contentContainerStyle={styles.contentInner}>
          <View style={styles.page}>{children}</View>
          <Footer />
        </ScrollView>
      </View>
      {sidebar.narrow ? (
        <>
          {sidebar.backdrop ? (
            <Pressable
              testID="sidebar-backdrop"
              accessibilityLabel="Close sidebar"
              onPress={sidebar.outsideClick}
              style={[StyleSheet.absoluteFill, { backgroundColor: colors.backdrop, zIndex: 20 }]}
            />
          ) : null}
          <View style={[styles.overlaySidebar, { top: insets.top, bottom: insets.bottom }]}>{sidebarView}</View>
        </>
      ) : null}
      <NotificationsMenu
        visible={menu === 'notifications'}
        onClose={() => setMenu('none')}
        onViewAll={() => {
          setMenu('none');
          navigate('Notifications');
        }}
      />
      <ProfileMenu
        visible={menu === 'profile'}
        user={user}
        onClose={() => setMenu('none')}
        onPasswordReset={() => {
          setMenu('none');
          setResetOpen(true);
        }}
        onLogout={() => {
          setMenu('none');
          onLogout();
        }}
      />
      <PasswordResetModal visible={resetOpen} onClose={() => setResetOpen(false)} />
    </View>
  );
}

const styles = StyleSheet.create({
  root: { flex: 1, flexDirection: 'row', overflow: 'hidden' },
  main: { flex: 1, minWidth: 0 },
  content: { flex: 1 },
  contentInner: { flexGrow: 1 },
  page: { flexGrow: 1 },
  overlaySidebar: { position: 'absolute', left: 0, zIndex: 30 },
});
