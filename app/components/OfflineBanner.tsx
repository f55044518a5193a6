import { onlineManager } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { StyleSheet, View } from 'react-native';

import { t } from '../i18n';
import { spacing, useTheme } from '../theme';
import { Text } from './Text';

const subscribe = (listener: () => void) => onlineManager.subscribe(listener);
const isOnline = () => onlineManager.isOnline();

/** Whether the device is online (NetInfo on Android/iOS, the browser's online events on the web; see appLifecycle). */
export function useOnline(): boolean {
  return useSyncExternalStore(subscribe, isOnline, isOnline);
}

/**
 * Says so while the device is offline: what the pages show may be out of
 * date, and nothing is sent (TanStack Query pauses until the network is back,
 * then refetches).
 */
export function OfflineBanner() {
  const online = useOnline();
  const { colors } = useTheme();
  if (online) return null;
  return (
    <View testID="offline-banner" role="alert" style={[styles.banner, { backgroundColor: colors.warningMuted, borderColor: colors.warning }]}>
      <Text style={{ color: colors.text }}>{t('You are offline: what you see may be out of date.')}</Text>
    </View>
  );
}

const styles = StyleSheet.create({
  banner: { paddingHorizontal: spacing.lg, paddingVertical: spacing.sm, borderBottomWidth: 1 },
});
