/** Android/iOS have no document root; the palette is applied through ThemeProvider. */
export function applyRootTheme(_scheme: 'light' | 'dark'): void {}
