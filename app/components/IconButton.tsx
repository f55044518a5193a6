import type { PressState } from './pressState';
import type { ReactNode } from 'react';
import { Pressable, StyleSheet, type PressableProps, type StyleProp, type ViewStyle } from 'react-native';

import { radius, useTheme } from '../theme';
import { Icon, type IconName } from './Icon';

export interface IconButtonProps extends Omit<PressableProps, 'style' | 'children'> {
  icon: IconName;
  /** Required: icon-only buttons must say what they do. */
  accessibilityLabel: string;
  size?: number;
  color?: string;
  style?: StyleProp<ViewStyle>;
  children?: ReactNode;
}

export function IconButton({ icon, size = 20, color, style, children, ...rest }: IconButtonProps) {
  const { colors } = useTheme();
  return (
    <Pressable
      accessibilityRole="button"
      hitSlop={4}
      {...rest}
      style={({ pressed, hovered }: PressState) => [
        styles.base,
        (pressed || hovered) && { backgroundColor: colors.surfaceMuted },
        style,
      ]}
    >
      <Icon name={icon} size={size} color={color ?? colors.text} />
      {children}
    </Pressable>
  );
}

const styles = StyleSheet.create({
  base: { width: 40, height: 40, borderRadius: radius.md, alignItems: 'center', justifyContent: 'center' },
});
