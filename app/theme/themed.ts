import { useCallback } from 'react';

import { fontSize, radius, spacing, type Palette } from './colors';
import { useTheme } from './ThemeProvider';

/** What a themed style reads: the scheme's colours and the fixed scales. */
export interface Theme {
  colors: Palette;
  spacing: typeof spacing;
  radius: typeof radius;
  fontSize: typeof fontSize;
}

/**
 * A style as a function of the theme (Ignite's `ThemedStyle`): written once,
 * outside the component, right in both schemes.
 *
 *   const $hint: ThemedStyle<TextStyle> = ({ colors }) => ({ color: colors.success });
 *   const themed = useThemed();
 *   <Text style={themed($hint)} />
 */
export type ThemedStyle<T> = (theme: Theme) => T;

/** `themed(style)` resolves ThemedStyles (one, or a list with plain styles) against the current scheme. */
export function useThemed() {
  const { colors } = useTheme();
  return useCallback(
    <T,>(style: ThemedStyle<T> | Array<ThemedStyle<T> | T | false | null | undefined>): T => {
      const theme: Theme = { colors, spacing, radius, fontSize };
      if (typeof style === 'function') return style(theme);
      return Object.assign(
        {},
        ...style.filter(Boolean).map((s) => (typeof s === 'function' ? (s as ThemedStyle<T>)(theme) : s)),
      ) as T;
    },
    [colors],
  );
}
