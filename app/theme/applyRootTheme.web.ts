/** Web: a `light` or `dark` class on <html>, and the matching color-scheme. */
export function applyRootTheme(scheme: 'light' | 'dark'): void {
  if (typeof document === 'undefined') return;
  const root = document.documentElement;
  root.classList.remove('light', 'dark');
  root.classList.add(scheme);
  root.style.colorScheme = scheme;
}
