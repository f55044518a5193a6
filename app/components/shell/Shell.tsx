import { useState, type ReactNode } from 'react';
import { Platform, Pressable, RefreshControl, ScrollView, StyleSheet, View, useWindowDimensions } from 'react-native';

import { usePullToRefresh } from '../../hooks/usePullToRefresh';
import { OfflineBanner } from '../OfflineBanner';
import { useSafeAreaInsets } from 'react-native-safe-area-context';

import type { AppRouteName } from '../../navigators/routes';
import type { User } from '../../services/api/types';
import { useNotificationCenter } from '../../state/NotificationsProvider';
import { useDismissKey } from '../../hooks/useDismissKey';
import { useSidebar } from '../../state/sidebar';
import { useTheme } from '../../theme';
import { PageFooterContext } from '../pageFooter';
import { Footer } from './Footer';
import { Header } from './Header';
import { NotificationsMenu } from './NotificationsMenu';
import { PasswordResetModal } from './PasswordResetModal';
import { ProfileMenu } from './ProfileMenu';
import { Sidebar } from './Sidebar';
import { t } from '../../i18n';

export interface ShellProps {
  /** The page is a virtualized list that scrolls itself (Android/iOS); the web always scrolls the page. */
  pageScrollsItself?: boolean;
  user: User | null;
  activeRoute: AppRouteName;
  onNavigate: (route: AppRouteName) => void;
  onLogout: () => void;
  children: ReactNode;
}

/**
 * The signed-in layout: sidebar on the left, header (60px) on top of the
 * content, which scrolls under the header and ends with the footer. From
 * 768px the sidebar sits beside the content (240px, or a 70px rail when
 * collapsed); below, it is a drawer over the content (a dimmed backdrop, an
 * outside click, Escape or the back button close it) and takes no room when
 * closed. The safe area (notch, home indicator, landscape cut-outs) is kept
 * clear on all four sides.
 */
export function Shell({ pageScrollsItself = false, user, activeRoute, onNavigate, onLogout, children }: ShellProps) {
  const { colors } = useTheme();
  const { width } = useWindowDimensions();
  const insets = useSafeAreaInsets();
  const sidebar = useSidebar(width);
  const { newCount, connection } = useNotificationCenter();
  const [menu, setMenu] = useState<'none' | 'notifications' | 'profile'>('none');
  const [resetOpen, setResetOpen] = useState(false);
  const pull = usePullToRefresh();

  const navigate = (route: AppRouteName) => {
    if (sidebar.narrow) sidebar.collapse();
    onNavigate(route);
  };

  const drawerOpen = sidebar.narrow && sidebar.open;
  useDismissKey(drawerOpen, sidebar.collapse);

  const sidebarView = (
    <Sidebar open={sidebar.open} width={sidebar.width} role={user?.role} activeRoute={activeRoute} onNavigate={navigate} />
  );

  return (
    <View
      testID="shell"
      style={[
        styles.root,
        {
          backgroundColor: colors.background,
          paddingTop: insets.top,
          paddingBottom: insets.bottom,
          paddingLeft: insets.left,
          paddingRight: insets.right,
        },
      ]}
    >
      {sidebar.narrow ? null : sidebarView}
      <View style={styles.main}>
        <Header
          user={user}
          newCount={newCount}
          live={connection}
          onToggleSidebar={sidebar.toggle}
          onOpenNotifications={() => setMenu('notifications')}
          onOpenProfile={() => setMenu('profile')}
        />
        <OfflineBanner />
        {pageScrollsItself && Platform.OS !== 'web' ? (
          // A long list scrolls itself and shows the footer after its last row.
          <View testID="content" style={styles.content}>
            <PageFooterContext.Provider value={<Footer />}>{children}</PageFooterContext.Provider>
          </View>
        ) : (
          <ScrollView
            testID="content"
            style={styles.content}
            contentContainerStyle={styles.contentInner}
            refreshControl={Platform.OS === 'web' ? undefined : <RefreshControl testID="pull-to-refresh" refreshing={pull.refreshing} onRefresh={pull.onRefresh} />}
          >
            <View style={styles.page}>{children}</View>
            <Footer />
          </ScrollView>
        )}
      </View>
      {drawerOpen ? (
        <>
          <Pressable
            testID="sidebar-backdrop"
            accessibilityLabel={t('Close sidebar')}
            onPress={sidebar.outsideClick}
            style={[StyleSheet.absoluteFill, { backgroundColor: colors.backdrop, zIndex: 20 }]}
          />
          <View
            testID="sidebar-drawer"
            role="dialog"
            aria-modal
            aria-label={t('Navigation')}
            onAccessibilityEscape={sidebar.collapse}
            style={[styles.drawer, { top: insets.top, bottom: insets.bottom, left: insets.left }]}
          >
            {sidebarView}
          </View>
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
        onSecurity={() => {
          setMenu('none');
          navigate('Security');
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
  drawer: { position: 'absolute', zIndex: 30 },
});
