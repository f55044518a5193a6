/**
 * Semantic colours (what a colour is for, not what it looks like). Every
 * text/background pair the app draws is listed in `contrast.ts` and checked
 * against WCAG AA in both schemes by `contrast.test.ts`.
 */
export interface Palette {
  background: string;
  surface: string;
  surfaceMuted: string;
  /** An unread item's background in the notifications panel. */
  surfaceAccent: string;
  border: string;
  text: string;
  textMuted: string;
  primary: string;
  /** Text and icons on `primary` (buttons, the logo, a checked box). */
  onPrimary: string;
  primaryMuted: string;
  danger: string;
  /** Text on `danger` (the danger button, the unread-count badge). */
  onDanger: string;
  dangerMuted: string;
  success: string;
  successMuted: string;
  warning: string;
  warningMuted: string;
  neutral: string;
  neutralMuted: string;
  backdrop: string;
  sidebar: string;
  sidebarText: string;
  sidebarActive: string;
  input: string;
  focus: string;
  /** Shadows under toasts and menus (iOS, web; Android uses elevation). */
  shadow: string;
}

export const lightPalette: Palette = {
  background: '#f5f7fb',
  surface: '#ffffff',
  surfaceMuted: '#f1f5f9',
  surfaceAccent: '#eff6ff',
  border: '#e2e8f0',
  text: '#0f172a',
  textMuted: '#475569',
  primary: '#1d4ed8',
  onPrimary: '#ffffff',
  primaryMuted: '#dbeafe',
  danger: '#b91c1c',
  onDanger: '#ffffff',
  dangerMuted: '#fee2e2',
  success: '#15803d',
  successMuted: '#dcfce7',
  warning: '#a16207',
  warningMuted: '#fef9c3',
  neutral: '#475569',
  neutralMuted: '#e2e8f0',
  backdrop: 'rgba(15, 23, 42, 0.5)',
  sidebar: '#ffffff',
  sidebarText: '#334155',
  sidebarActive: '#dbeafe',
  input: '#ffffff',
  focus: '#93c5fd',
  shadow: '#000000',
};

export const darkPalette: Palette = {
  background: '#0b1120',
  surface: '#111827',
  surfaceMuted: '#1f2937',
  surfaceAccent: '#172554',
  border: '#334155',
  text: '#f1f5f9',
  textMuted: '#94a3b8',
  primary: '#93c5fd',
  onPrimary: '#0b1120',
  primaryMuted: '#1e3a8a',
  danger: '#f87171',
  onDanger: '#0b1120', // white on this red would be 2.8:1
  dangerMuted: '#450a0a',
  success: '#4ade80',
  successMuted: '#052e16',
  warning: '#facc15',
  warningMuted: '#422006',
  neutral: '#94a3b8',
  neutralMuted: '#1f2937',
  backdrop: 'rgba(0, 0, 0, 0.6)',
  sidebar: '#111827',
  sidebarText: '#cbd5e1',
  sidebarActive: '#1e3a8a',
  input: '#0f172a',
  focus: '#1d4ed8',
  shadow: '#000000',
};

export const spacing = { xs: 4, sm: 8, md: 12, lg: 16, xl: 24, xxl: 32 } as const;
export const radius = { sm: 4, md: 8, lg: 12, pill: 999 } as const;
/** Font sizes (px). Nothing outside theme/ writes a number for a font size (see noLiterals.test.ts). */
/**
 * The web's font: react-native-web's "System" stack, which every <Text> uses.
 * Elements the browser draws itself (a <select>, the page around the app)
 * take it explicitly: left to inherit, they fell back to the browser's serif.
 */
export const WEB_FONT_STACK = '-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif';

export const fontSize = { tiny: 10, caption: 11, xs: 12, sm: 14, md: 16, lg: 18, xl: 22, xxl: 28 } as const;

/** Layout constants of the spec (§9). */
export const layout = {
  headerHeight: 60,
  sidebarExpanded: 240,
  sidebarCollapsed: 70,
  breakpoint: 768,
  profileMenuWidth: 224, // 14rem
  notificationsPanelWidth: 400,
} as const;

/** Raised surfaces: shadow on iOS and the web, elevation on Android (colour: `colors.shadow`). */
export const elevation = {
  toast: { shadowOpacity: 0.12, shadowRadius: 10, shadowOffset: { width: 0, height: 3 }, elevation: 6 },
  menu: { shadowOpacity: 0.15, shadowRadius: 12, shadowOffset: { width: 0, height: 4 }, elevation: 8 },
} as const;
