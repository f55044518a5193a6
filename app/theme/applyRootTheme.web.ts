import { WEB_FONT_STACK } from './colors';

/** Web: a `light` or `dark` class on <html>, the matching color-scheme, and the app's font for what the browser draws itself. */
export function applyRootTheme(scheme: 'light' | 'dark'): void {
  if (typeof document === 'undefined') return;
  const root = document.documentElement;
  root.style.fontFamily = WEB_FONT_STACK;
  root.classList.remove('light', 'dark');
  root.classList.add(scheme);
  root.style.colorScheme = scheme;
}
