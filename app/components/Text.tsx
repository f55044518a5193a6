import { Text as RNText, type TextProps as RNTextProps, StyleSheet } from 'react-native';

import { fontSize, useTheme } from '../theme';

export type TextVariant = 'heading' | 'title' | 'subtitle' | 'body' | 'muted' | 'small' | 'label';

export interface TextProps extends RNTextProps {
  variant?: TextVariant;
}

/** Themed text. `heading` renders as an h1 on the web, `title` as an h2. */
export function Text({ variant = 'body', style, ...rest }: TextProps) {
  const { colors } = useTheme();
  const color = variant === 'muted' || variant === 'small' ? colors.textMuted : colors.text;
  const headingProps =
    variant === 'heading'
      ? ({ role: 'heading', 'aria-level': 1 } as const)
      : variant === 'title'
        ? ({ role: 'heading', 'aria-level': 2 } as const)
        : {};
  return <RNText {...headingProps} {...rest} style={[styles[variant], { color }, style]} />;
}

const styles = StyleSheet.create({
  heading: { fontSize: fontSize.xxl, fontWeight: '700' },
  title: { fontSize: fontSize.xl, fontWeight: '700' },
  subtitle: { fontSize: fontSize.lg, fontWeight: '600' },
  body: { fontSize: fontSize.md },
  muted: { fontSize: fontSize.sm },
  small: { fontSize: fontSize.xs },
  label: { fontSize: fontSize.sm, fontWeight: '600' },
});
