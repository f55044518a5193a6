import { useLayoutEffect, useState } from 'react';
import { ActivityIndicator, Platform, Pressable, StyleSheet, View } from 'react-native';
import { useSafeAreaInsets } from 'react-native-safe-area-context';

import { createStore, useStore } from '../state/store';
import { useToasts, toast, type Toast } from '../state/toast';
import { elevation, layout, radius, spacing, useTheme } from '../theme';
import { Icon } from './Icon';
import { Text } from './Text';

/**
 * Toast hosts, bottom to top. On Android and iOS a React Native `Modal` is a
 * window of its own, drawn over the app's: toasts shown by the root host would
 * sit under an open form. So every `Modal` mounts a `<Toaster />` too, and only
 * the topmost host (the last one mounted) renders the toasts; when a modal
 * closes, its host goes and the one below takes over.
 */
const hosts = createStore<number[]>([]);
let lastHostId = 0;

/**
 * Renders the toasts at the top right, newest first. Mounted once at the root
 * and once inside every modal (see `Modal`, `Popover`); only the topmost shows them.
 */
export function Toaster() {
  const [id] = useState(() => ++lastHostId);
  useLayoutEffect(() => {
    hosts.setState((list) => [...list, id]);
    return () => hosts.setState((list) => list.filter((h) => h !== id));
  }, [id]);
  const isTop = useStore(hosts, (list) => list[list.length - 1] === id);
  const toasts = useToasts();
  const insets = useSafeAreaInsets();
  if (!isTop || toasts.length === 0) return null;
  return (
    <View
      pointerEvents="box-none"
      testID="toaster"
      // Below the header (60 px): a toast never covers the bell or the avatar.
      style={[styles.region, { top: insets.top + layout.headerHeight + spacing.sm, right: insets.right + spacing.lg, left: insets.left + spacing.lg }]}
      aria-live="polite"
      accessibilityLiveRegion="polite"
    >
      {toasts.map((t) => (
        <ToastView key={t.id} toast={t} />
      ))}
    </View>
  );
}

function ToastView({ toast: t }: { toast: Toast }) {
  const { colors } = useTheme();
  const icon =
    t.type === 'loading' ? (
      <ActivityIndicator size="small" color={colors.primary} />
    ) : t.type === 'success' ? (
      <Icon name="check-circle" size={18} color={colors.success} />
    ) : t.type === 'error' ? (
      <Icon name="alert-circle" size={18} color={colors.danger} />
    ) : null;
  return (
    <Pressable
      testID={`toast-${t.type}`}
      role={t.type === 'error' ? 'alert' : 'status'}
      accessibilityRole={t.type === 'error' ? 'alert' : 'text'}
      accessibilityLabel={t.message}
      onPress={() => toast.dismiss(t.id)}
      style={[styles.toast, elevation.toast, { backgroundColor: colors.surface, borderColor: colors.border, shadowColor: colors.shadow }]}
    >
      {icon}
      <Text variant="muted" style={[styles.message, { color: colors.text }]}>
        {t.message}
      </Text>
    </Pressable>
  );
}

const TOAST_MAX_WIDTH = 360;

const styles = StyleSheet.create({
  region: {
    position: Platform.OS === 'web' ? ('fixed' as 'absolute') : 'absolute',
    zIndex: 10000,
    alignItems: 'flex-end',
    gap: spacing.sm,
  },
  toast: {
    flexDirection: 'row',
    alignItems: 'center',
    gap: spacing.sm,
    borderWidth: 1,
    borderRadius: radius.md,
    paddingHorizontal: spacing.md,
    paddingVertical: spacing.sm + 2,
    maxWidth: TOAST_MAX_WIDTH,
  },
  message: { flexShrink: 1 },
});
