import { t } from '../i18n';

/**
 * Rules of the two-factor forms (contract §6): a current code is six digits;
 * at sign-in and to turn it off, an unused backup code (`abcde-fghjk`) works
 * too. The server ignores spaces, hyphens and case in a backup code.
 */

/** What the user typed, without the spaces an authenticator app shows ('123 456'). */
export function normalizeCode(typed: string): string {
  return typed.trim().replace(/\s+/g, '');
}

const SIX_DIGITS = /^\d{6}$/;
/** Ten letters or digits (hyphens and spaces ignored), as the server writes backup codes. */
const BACKUP_CODE = /^[a-z0-9]{10}$/i;

export const CODE_REQUIRED_MESSAGE = 'Enter the 6-digit code from your authenticator app';
export const CODE_OR_BACKUP_MESSAGE = 'Enter the 6-digit code from your authenticator app, or a backup code';

/** Turning 2FA on: a current six-digit code. Null when fine. */
export function totpCodeError(typed: string): string | null {
  return SIX_DIGITS.test(normalizeCode(typed)) ? null : t(CODE_REQUIRED_MESSAGE);
}

/** Signing in or turning 2FA off: six digits, or a backup code. Null when fine. */
export function codeOrBackupError(typed: string): string | null {
  const code = normalizeCode(typed);
  if (SIX_DIGITS.test(code) || BACKUP_CODE.test(code.replace(/-/g, ''))) return null;
  return t(CODE_OR_BACKUP_MESSAGE);
}

/** The secret in groups of four, easier to type into an authenticator app ('JBSW Y3DP ...'). */
export function groupSecret(secret: string): string {
  return secret.replace(/\s+/g, '').replace(/(.{4})(?=.)/g, '$1 ');
}

/**
 * A session's device in a few words ('Chrome on Linux', 'Safari on iPhone')
 * from its User-Agent; 'Unknown device' when there is none.
 */
export function describeUserAgent(userAgent: string | null | undefined): string {
  const ua = (userAgent ?? '').trim();
  if (!ua) return t('Unknown device');
  const browser =
    /Edg\//.test(ua) ? 'Edge'
    : /OPR\/|Opera/.test(ua) ? 'Opera'
    : /Firefox\//.test(ua) ? 'Firefox'
    : /Chrom(e|ium)\//.test(ua) ? 'Chrome'
    : /Safari\//.test(ua) && /Version\//.test(ua) ? 'Safari'
    : /okhttp|Dalvik/i.test(ua) ? 'Android app'
    : /CFNetwork|Darwin/.test(ua) ? 'iOS app'
    : /^curl\//.test(ua) ? 'curl'
    : null;
  const system =
    /iPhone/.test(ua) ? 'iPhone'
    : /iPad/.test(ua) ? 'iPad'
    : /Android/.test(ua) ? 'Android'
    : /Windows/.test(ua) ? 'Windows'
    : /Mac OS X|Macintosh/.test(ua) ? 'macOS'
    : /CrOS/.test(ua) ? 'ChromeOS'
    : /Linux/.test(ua) ? 'Linux'
    : null;
  if (browser && system) return `${browser} on ${system}`;
  if (browser) return browser;
  if (system) return system;
  return ua.length > 60 ? `${ua.slice(0, 57)}...` : ua;
}
