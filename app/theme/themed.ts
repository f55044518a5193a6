import { useMemo } from 'react';
import { StyleSheet } from 'react-native';

import { fontSize, radius, spacing, type Palette } from './colors';
import { useTheme, type ColorScheme } from './ThemeProvider';

/** What a themed style may read: the palette of the scheme shown, and the scales. */
export interface ThemeTokens {
  colors: Palette;
  scheme: ColorScheme;
  spacing: typeof spacing;
  radius: typeof radius;
  fontSize: typeof fontSize;
}

/**
 * Ignite's ThemedStyle: a style written as a function of the theme, so a
 * component's colours follow light and dark without inline objects.
 * Declare it at module level (`const $row: ThemedStyle<ViewStyle> = ({ colors }) => ...`)
 * and read a set of them with `useThemedStyles`.
 */
export type ThemedStyle<T> = (theme: ThemeTokens) => T;

/** Resolves a module-level set of themed styles for the scheme shown (once per scheme). */
export function useThemedStyles<T extends StyleSheet.NamedStyles<T>>(styles: ThemedStyle<T>): T {
  const { colors, scheme } = useTheme();
  return useMemo(() => StyleSheet.create(styles({ colors, scheme, spacing, radius, fontSize })), [styles, colors, scheme]);
}
