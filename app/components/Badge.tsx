import { StyleSheet, View, type Role, type StyleProp, type ViewStyle } from 'react-native';

import { fontSize, radius, spacing, useTheme } from '../theme';
import { Text } from './Text';

export type BadgeTone = 'success' | 'danger' | 'warning' | 'neutral' | 'info';

export interface BadgeProps {
  label: string | number;
  tone?: BadgeTone;
  style?: StyleProp<ViewStyle>;
  testID?: string;
  accessibilityLabel?: string;
  /** e.g. 'status' for a badge that reports a state. */
  role?: Role;
}

export function Badge({ label, tone = 'neutral', style, testID, accessibilityLabel, role }: BadgeProps) {
  const { colors } = useTheme();
  const tones: Record<BadgeTone, { bg: string; fg: string }> = {
    success: { bg: colors.successMuted, fg: colors.success },
    danger: { bg: colors.dangerMuted, fg: colors.danger },
    warning: { bg: colors.warningMuted, fg: colors.warning },
    neutral: { bg: colors.neutralMuted, fg: colors.neutral },
    info: { bg: colors.primaryMuted, fg: colors.primary },
  };
  const t = tones[tone];
  return (
    <View testID={testID} accessibilityLabel={accessibilityLabel} role={role} style={[styles.badge, { backgroundColor: t.bg }, style]}>
      <Text style={[styles.text, { color: t.fg }]}>{String(label)}</Text>
    </View>
  );
}

/** Status colours (spec §4 for money requests; approvals alike): accepted (approved) green, rejected red, expired grey, pending yellow. */
export function statusTone(status: string | null | undefined): BadgeTone {
  switch ((status ?? '').toUpperCase()) {
    case 'ACCEPTED':
    case 'APPROVED':
      return 'success';
    case 'REJECTED':
      return 'danger';
    case 'PENDING':
      return 'warning';
    default:
      return 'neutral';
  }
}

const styles = StyleSheet.create({
  badge: { alignSelf: 'flex-start', borderRadius: radius.pill, paddingHorizontal: spacing.sm, paddingVertical: 2 },
  text: { fontSize: fontSize.caption, fontWeight: '700' },
});
