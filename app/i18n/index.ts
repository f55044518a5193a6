/**
 * The app's languages: i18next, with the device's language from
 * expo-localization (the browser's on the web), English and Spanish.
 *
 * Keys are the English sentences themselves (Lingui's and gettext's way):
 * `t('Transfer Funds')`, `t('Used today: {{used}} of {{limit}}')`. en.json
 * holds only what differs from its key (plurals); es.json holds every key,
 * and a test fails when a key used in the code is missing from it. The
 * catalogs are plain JSON, so the browser tests read them too.
 *
 * Money, numbers and dates are written by Intl for `locale()` (utils/format.ts).
 */
import i18next, { type TOptions } from 'i18next';
import { getLocales } from 'expo-localization';

import en from './en.json';
import es from './es.json';

export const LANGUAGES = ['en', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];

interface DeviceLocale {
  languageCode?: string | null;
  languageTag?: string | null;
}

/**
 * The first of the device's preferred locales in a language the app speaks:
 * its language and its BCP 47 tag for Intl ('es', 'es-MX'); English (en-US)
 * when none is.
 */
export function pickLocale(locales: DeviceLocale[]): { language: Language; tag: string } {
  for (const l of locales) {
    const code = (l.languageCode ?? l.languageTag?.split('-')[0] ?? '').toLowerCase();
    if ((LANGUAGES as readonly string[]).includes(code)) {
      return { language: code as Language, tag: l.languageTag || code };
    }
  }
  return { language: 'en', tag: 'en-US' };
}

function deviceLocales(): DeviceLocale[] {
  try {
    return getLocales();
  } catch {
    return [];
  }
}

const device = pickLocale(deviceLocales());
let localeTag = device.tag;

export const i18n = i18next.createInstance();
void i18n.init({
  lng: device.language,
  fallbackLng: 'en',
  supportedLngs: [...LANGUAGES],
  resources: { en: { translation: en }, es: { translation: es } },
  // Natural-language keys: no separators inside them.
  keySeparator: false,
  nsSeparator: false,
  interpolation: { escapeValue: false }, // React escapes
  returnEmptyString: false,
  initAsync: false,
});

/** The web page says its language (screen readers, the browser's translator). */
function markDocument(lang: Language): void {
  if (typeof document !== 'undefined' && document.documentElement) document.documentElement.lang = lang;
}
markDocument(device.language);

/** A text in the user's language (the key is its English wording). */
export function t(key: string, options?: Record<string, unknown>): string {
  return (options ? i18n.t(key, options as TOptions) : i18n.t(key)) as string;
}

/** The locale Intl writes money, numbers and dates in ('es-ES', 'en-US'). */
export function locale(): string {
  return localeTag;
}

/** The language in use. */
export function language(): Language {
  return (i18n.language as Language) ?? 'en';
}

/**
 * Switches the language (and Intl's locale): tests, and a device whose
 * language changed. The app redraws from its root (App.tsx keys it by language).
 */
export function setLanguage(lang: Language, tag: string = lang === 'en' ? 'en-US' : lang): void {
  localeTag = tag;
  markDocument(lang);
  void i18n.changeLanguage(lang);
}
