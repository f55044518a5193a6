import type { ReactNode } from 'react';
import { StyleSheet, View, type StyleProp, type ViewStyle } from 'react-native';

import { radius, spacing, useTheme } from '../theme';
import { Text } from './Text';

export interface CardProps {
  title?: string;
  /** Right side of the title row (a selector, a link...). */
  action?: ReactNode;
  children?: ReactNode;
  style?: StyleProp<ViewStyle>;
  testID?: string;
}

/** A bordered panel; its title is a heading (level 2: pages are level 1). */
export function Card({ title, action, children, style, testID }: CardProps) {
  const { colors } = useTheme();
  return (
    <View testID={testID} style={[styles.card, { backgroundColor: colors.surface, borderColor: colors.border }, style]}>
      {title || action ? (
        <View style={styles.header}>
          {title ? (
            <Text variant="label" role="heading" aria-level={2} style={{ color: colors.textMuted, flexShrink: 1 }}>
              {title}
            </Text>
          ) : null}
          {action}
        </View>
      ) : null}
      {children}
    </View>
  );
}

const styles = StyleSheet.create({
  card: { borderWidth: 1, borderRadius: radius.lg, padding: spacing.lg, gap: spacing.sm },
  header: { flexDirection: 'row', alignItems: 'center', justifyContent: 'space-between', gap: spacing.sm, flexWrap: 'wrap' },
});
