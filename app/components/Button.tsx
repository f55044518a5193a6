import type { PressState } from './pressState';
import { ActivityIndicator, Pressable, StyleSheet, View, type PressableProps, type StyleProp, type ViewStyle } from 'react-native';

import { fontSize, radius, spacing, useTheme } from '../theme';
import { Icon, type IconName } from './Icon';
import { Text } from './Text';

export type ButtonVariant = 'primary' | 'secondary' | 'outline' | 'ghost' | 'danger' | 'link';

export interface ButtonProps extends Omit<PressableProps, 'children' | 'style'> {
  title: string;
  variant?: ButtonVariant;
  loading?: boolean;
  icon?: IconName;
  size?: 'sm' | 'md';
  style?: StyleProp<ViewStyle>;
  fullWidth?: boolean;
}

export function Button({
  title,
  variant = 'primary',
  loading = false,
  disabled,
  icon,
  size = 'md',
  style,
  fullWidth,
  ...rest
}: ButtonProps) {
  const { colors } = useTheme();
  const isDisabled = disabled || loading;
  const palette: Record<ButtonVariant, { bg: string; fg: string; border: string }> = {
    primary: { bg: colors.primary, fg: colors.onPrimary, border: colors.primary },
    secondary: { bg: colors.surfaceMuted, fg: colors.text, border: colors.surfaceMuted },
    outline: { bg: 'transparent', fg: colors.text, border: colors.border },
    ghost: { bg: 'transparent', fg: colors.text, border: 'transparent' },
    danger: { bg: colors.danger, fg: colors.onDanger, border: colors.danger },
    link: { bg: 'transparent', fg: colors.primary, border: 'transparent' },
  };
  const p = palette[variant];
  return (
    <Pressable
      accessibilityRole="button"
      accessibilityState={{ disabled: !!isDisabled, busy: loading }}
      disabled={isDisabled}
      {...rest}
      style={({ pressed, hovered }: PressState) => [
        styles.base,
        size === 'sm' ? styles.sm : styles.md,
        variant === 'link' && styles.link,
        { backgroundColor: p.bg, borderColor: p.border },
        (pressed || hovered) && !isDisabled && variant !== 'link' && styles.pressed,
        isDisabled && styles.disabled,
        fullWidth && styles.fullWidth,
        style,
      ]}
    >
      <View style={styles.row}>
        {loading ? <ActivityIndicator size="small" color={p.fg} /> : icon ? <Icon name={icon} size={16} color={p.fg} /> : null}
        <Text style={[styles.label, { color: p.fg }, variant === 'link' && styles.linkLabel]}>{title}</Text>
      </View>
    </Pressable>
  );
}

const styles = StyleSheet.create({
  base: { borderWidth: 1, borderRadius: radius.md, alignItems: 'center', justifyContent: 'center' },
  md: { minHeight: 40, paddingHorizontal: spacing.lg, paddingVertical: spacing.sm },
  sm: { minHeight: 32, paddingHorizontal: spacing.md, paddingVertical: spacing.xs },
  link: { paddingHorizontal: 0, minHeight: 0 },
  row: { flexDirection: 'row', alignItems: 'center', gap: spacing.sm },
  label: { fontSize: fontSize.sm, fontWeight: '600' },
  linkLabel: { textDecorationLine: 'underline' },
  pressed: { opacity: 0.85 },
  disabled: { opacity: 0.5 },
  fullWidth: { alignSelf: 'stretch' },
});
