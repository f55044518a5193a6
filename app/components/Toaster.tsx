import { ActivityIndicator, Platform, Pressable, StyleSheet, View } from 'react-native';
import { useSafeAreaInsets } from 'react-native-safe-area-context';

import { useToasts, toast, type Toast } from '../state/toast';
import { radius, spacing, useTheme } from '../theme';
import { Icon } from './Icon';
import { Text } from './Text';

/** Renders the toasts at the top right, newest first. Mount once at the root. */
export function Toaster() {
  const toasts = useToasts();
  const insets = useSafeAreaInsets();
  if (toasts.length === 0) return null;
  return (
    <View
      pointerEvents="box-none"
      style={[styles.region, { top: insets.top + spacing.lg, right: insets.right + spacing.lg }]}
      aria-live="polite"
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
      accessibilityLabel={t.message}
      onPress={() => toast.dismiss(t.id)}
      style={[styles.toast, { backgroundColor: colors.surface, borderColor: colors.border }]}
    >
      {icon}
      <Text variant="muted" style={[styles.message, { color: colors.text }]}>
        {t.message}
      </Text>
    </Pressable>
  );
}

const styles = StyleSheet.create({
  region: {
    position: Platform.OS === 'web' ? ('fixed' as 'absolute') : 'absolute',
    zIndex: 10000,
    alignItems: 'flex-end',
    gap: spacing.sm,
    maxWidth: 360,
    left: spacing.lg,
  },
  toast: {
    flexDirection: 'row',
    alignItems: 'center',
    gap: spacing.sm,
    borderWidth: 1,
    borderRadius: radius.md,
    paddingHorizontal: spacing.md,
    paddingVertical: spacing.sm + 2,
    maxWidth: 360,
    shadowColor: '#000',
    shadowOpacity: 0.12,
    shadowRadius: 10,
    shadowOffset: { width: 0, height: 3 },
    elevation: 6,
  },
  message: { flexShrink: 1 },
});
