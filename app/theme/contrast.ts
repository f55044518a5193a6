import type { Palette } from './colors';

type ColorKey = keyof Palette;

/**
 * Every pair of a foreground drawn on a background that the components use,
 * in both schemes. `large`: text of 18px and more, or 14px bold and more
 * (WCAG: 3:1); `graphic`: icons and other non-text marks (3:1); otherwise
 * body text (4.5:1). A component that draws a new pair adds it here, and the
 * contrast test checks it.
 */
export const THEME_PAIRS: ReadonlyArray<{ fg: ColorKey; bg: ColorKey; kind: 'text' | 'large' | 'graphic'; where: string }> = [
  { fg: 'text', bg: 'background', kind: 'text', where: 'page titles, body text' },
  { fg: 'text', bg: 'surface', kind: 'text', where: 'cards, tables, modals, toasts, menus' },
  { fg: 'text', bg: 'surfaceMuted', kind: 'text', where: 'hovered rows and menu items, secondary buttons' },
  { fg: 'text', bg: 'surfaceAccent', kind: 'text', where: 'unread notification in the header panel' },
  { fg: 'text', bg: 'input', kind: 'text', where: 'typed text in fields and selects' },
  { fg: 'text', bg: 'sidebar', kind: 'text', where: 'the logo name' },
  { fg: 'textMuted', bg: 'background', kind: 'text', where: 'muted text on the page' },
  { fg: 'textMuted', bg: 'surface', kind: 'text', where: 'card titles, table headers, relative times, chart ticks' },
  { fg: 'textMuted', bg: 'surfaceMuted', kind: 'text', where: 'table header row' },
  { fg: 'textMuted', bg: 'surfaceAccent', kind: 'text', where: 'time of an unread notification in the panel' },
  { fg: 'textMuted', bg: 'input', kind: 'text', where: 'placeholders' },
  { fg: 'textMuted', bg: 'sidebar', kind: 'text', where: 'sidebar group titles' },
  { fg: 'primary', bg: 'background', kind: 'text', where: 'links on the page' },
  { fg: 'primary', bg: 'surface', kind: 'text', where: 'links in cards, footer links, Refresh' },
  { fg: 'primary', bg: 'primaryMuted', kind: 'text', where: "'New' and info badges, the avatar's initials" },
  { fg: 'primary', bg: 'sidebarActive', kind: 'text', where: 'the active sidebar link' },
  { fg: 'onPrimary', bg: 'primary', kind: 'text', where: 'primary buttons, the logo letter' },
  { fg: 'danger', bg: 'surface', kind: 'text', where: 'inline errors, required marks, destructive menu items' },
  { fg: 'danger', bg: 'background', kind: 'text', where: 'inline errors on the page' },
  { fg: 'danger', bg: 'input', kind: 'text', where: 'field errors beside inputs' },
  { fg: 'danger', bg: 'surfaceMuted', kind: 'text', where: 'a hovered destructive menu item' },
  { fg: 'danger', bg: 'dangerMuted', kind: 'text', where: 'rejected and debit badges' },
  { fg: 'onDanger', bg: 'danger', kind: 'text', where: 'the danger button, the unread-count badge' },
  { fg: 'success', bg: 'surface', kind: 'text', where: "the recipient's name" },
  { fg: 'success', bg: 'successMuted', kind: 'text', where: 'accepted, active and credit badges' },
  { fg: 'warning', bg: 'warningMuted', kind: 'text', where: 'pending badges' },
  { fg: 'text', bg: 'warningMuted', kind: 'text', where: 'the offline banner' },
  { fg: 'neutral', bg: 'neutralMuted', kind: 'text', where: 'expired and inactive badges' },
  { fg: 'sidebarText', bg: 'sidebar', kind: 'text', where: 'sidebar links' },
  { fg: 'sidebarText', bg: 'surfaceMuted', kind: 'text', where: 'a hovered sidebar link' },
  { fg: 'primary', bg: 'input', kind: 'graphic', where: 'focused field border' },
  { fg: 'success', bg: 'surface', kind: 'graphic', where: 'success toast icon' },
  { fg: 'danger', bg: 'surface', kind: 'graphic', where: 'error toast icon, delete icon' },
];

/** WCAG AA minimum: 4.5:1 for body text, 3:1 for large text and graphics. */
export function requiredRatio(kind: 'text' | 'large' | 'graphic'): number {
  return kind === 'text' ? 4.5 : 3;
}

function channel(c: number): number {
  const v = c / 255;
  return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
}

/** Relative luminance of '#rgb' or '#rrggbb' (WCAG 2.x). */
export function luminance(hex: string): number {
  let h = hex.replace('#', '');
  if (h.length === 3) h = h.split('').map((c) => c + c).join('');
  if (!/^[0-9a-f]{6}$/i.test(h)) throw new Error(`not an opaque hex colour: ${hex}`);
  const [r, g, b] = [0, 2, 4].map((i) => channel(parseInt(h.slice(i, i + 2), 16)));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Contrast ratio (1 to 21) of two opaque colours. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}
