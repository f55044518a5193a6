import { useCallback, useMemo } from 'react';
import { StyleSheet } from 'react-native';

import { fontSize, radius, spacing, type Palette } from './colors';
import { useTheme, type ColorScheme } from './ThemeProvider';

/** What a themed style reads: the palette of the scheme shown, and the fixed scales. */
export interface Theme {
  colors: Palette;
  scheme: ColorScheme;
  spacing: typeof spacing;
  radius: typeof radius;
  fontSize: typeof fontSize;
}

/**
 * A style as a function of the theme (Ignite's `ThemedStyle`): written once,
 * at module level, right in both schemes.
 *
 *   const $hint: ThemedStyle<TextStyle> = ({ colors }) => ({ color: colors.success });
 *
 * Read one style (or a list mixed with plain styles) with `useThemed()`, or a
 * whole named set, as a StyleSheet, with `useThemedStyles`.
 */
export type ThemedStyle<T> = (theme: Theme) => T;

function useThemeValue(): Theme {
  const { colors, scheme } = useTheme();
  return useMemo(() => ({ colors, scheme, spacing, radius, fontSize }), [colors, scheme]);
}

/** `themed(style)` resolves a ThemedStyle (one, or a list with plain styles) for the scheme shown. */
export function useThemed() {
  const theme = useThemeValue();
  return useCallback(
    <T,>(style: ThemedStyle<T> | Array<ThemedStyle<T> | T | false | null | undefined>): T => {
      if (typeof style === 'function') return style(theme);
      return Object.assign(
        {},
        ...style.filter(Boolean).map((s) => (typeof s === 'function' ? (s as ThemedStyle<T>)(theme) : s)),
      ) as T;
    },
    [theme],
  );
}

/** Resolves a module-level set of themed styles for the scheme shown (once per scheme). */
export function useThemedStyles<T extends StyleSheet.NamedStyles<T>>(styles: ThemedStyle<T>): T {
  const theme = useThemeValue();
  return useMemo(() => StyleSheet.create(styles(theme)), [styles, theme]);
}
