import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useColorScheme } from 'react-native';

import { storage as defaultStorage, STORAGE_KEYS, type KeyValueStorage } from '../services/storage';
import { applyRootTheme } from './applyRootTheme';
import { darkPalette, lightPalette, type Palette } from './colors';

export type ThemeMode = 'light' | 'dark' | 'system';
export type ColorScheme = 'light' | 'dark';

export function parseThemeMode(raw: string | null | undefined): ThemeMode {
  return raw === 'light' || raw === 'dark' || raw === 'system' ? raw : 'system';
}

export function resolveScheme(mode: ThemeMode, system: string | null | undefined): ColorScheme {
  if (mode === 'system') return system === 'dark' ? 'dark' : 'light';
  return mode;
}

export interface ThemeContextValue {
  /** The stored choice. */
  mode: ThemeMode;
  /** What is shown. */
  scheme: ColorScheme;
  colors: Palette;
  setMode: (mode: ThemeMode) => void;
  /** The header toggle: light <-> dark. */
  toggle: () => void;
}

const ThemeContext = createContext<ThemeContextValue | null>(null);

export function ThemeProvider({ children, storage = defaultStorage }: { children: ReactNode; storage?: KeyValueStorage }) {
  const system = useColorScheme();
  const [mode, setModeState] = useState<ThemeMode>(() => {
    const sync = storage.getItemSync(STORAGE_KEYS.theme);
    return sync === undefined ? 'system' : parseThemeMode(sync);
  });

  useEffect(() => {
    if (storage.getItemSync(STORAGE_KEYS.theme) !== undefined) return;
    let cancelled = false;
    storage
      .getItem(STORAGE_KEYS.theme)
      .then((raw) => {
        if (!cancelled && raw) setModeState(parseThemeMode(raw));
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [storage]);

  const scheme = resolveScheme(mode, system);

  useEffect(() => {
    applyRootTheme(scheme);
  }, [scheme]);

  const setMode = useCallback(
    (next: ThemeMode) => {
      setModeState(next);
      void storage.setItem(STORAGE_KEYS.theme, next).catch(() => undefined);
    },
    [storage],
  );

  const toggle = useCallback(() => setMode(scheme === 'dark' ? 'light' : 'dark'), [scheme, setMode]);

  const value = useMemo<ThemeContextValue>(
    () => ({ mode, scheme, colors: scheme === 'dark' ? darkPalette : lightPalette, setMode, toggle }),
    [mode, scheme, setMode, toggle],
  );

  return <ThemeContext.Provider value={value}>{children}</ThemeContext.Provider>;
}

export function useTheme(): ThemeContextValue {
  const ctx = useContext(ThemeContext);
  if (!ctx) throw new Error('useTheme must be used inside <ThemeProvider>');
  return ctx;
}
