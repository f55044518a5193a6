import { locale } from '../i18n';
import type { Account } from '../services/api/types';

/** The currency the dashboards' top-level figures are in (contract §5). */
export const BASE_CURRENCY = 'USD';

const moneyFormats = new Map<string, Intl.NumberFormat>();

/** Intl's currency format for a locale and currency (cached: building one is slow). */
function moneyFormat(tag: string, code: string): Intl.NumberFormat | null {
  const key = `${tag}|${code}`;
  let f = moneyFormats.get(key);
  if (!f) {
    try {
      f = new Intl.NumberFormat(tag, { style: 'currency', currency: code, minimumFractionDigits: 2, maximumFractionDigits: 2 });
    } catch {
      return null; // not an ISO 4217 code
    }
    moneyFormats.set(key, f);
  }
  return f;
}

/**
 * An amount in its currency, 2 decimals, written by Intl for the user's
 * locale: '$1,250.50', '€12.50', '-$3.00' in en-US; '1250,50 US$' in es-ES.
 * The one money formatter of the app; the currency defaults to the base
 * currency. A code Intl does not know goes after the number: '12.50 XYZ'.
 */
export function formatMoney(value: number | string | null | undefined, currency: string = BASE_CURRENCY, tag: string = locale()): string {
  const n = typeof value === 'string' ? Number(value) : value ?? 0;
  const safe = Number.isFinite(n) ? (n as number) : 0;
  const code = (currency || BASE_CURRENCY).trim().toUpperCase();
  const f = moneyFormat(tag, code);
  return f ? f.format(safe) : `${safe < 0 ? '-' : ''}${formatNumber(Math.abs(safe), 2, tag)} ${code}`;
}

/** A number for the user's locale ('1,234.5' in en-US, '1234,5' in es-ES). */
export function formatNumber(value: number, fractionDigits?: number, tag: string = locale()): string {
  return new Intl.NumberFormat(tag, fractionDigits === undefined ? {} : { minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits }).format(value);
}

/**
 * The currency of the first of `numbers` that is one of `accounts`, else the
 * base currency. Both sides of a transfer or request share one currency, so
 * either account number of a row tells it.
 */
export function currencyOf(accounts: Account[] | undefined, ...numbers: Array<string | null | undefined>): string {
  for (const n of numbers) {
    const found = n ? accounts?.find((a) => a.account_number === n) : undefined;
    if (found?.currency) return found.currency;
  }
  return BASE_CURRENCY;
}

/** Totals of balances per currency, in cents so no float drift; base currency first. */
export function balancesByCurrency(accounts: Account[] | undefined): Array<{ currency: string; total: number }> {
  const cents = new Map<string, number>();
  for (const a of accounts ?? []) {
    const code = (a.currency || BASE_CURRENCY).toUpperCase();
    cents.set(code, (cents.get(code) ?? 0) + Math.round(Number(a.balance) * 100));
  }
  return [...cents.entries()]
    .sort(([x], [y]) => (x === BASE_CURRENCY ? -1 : y === BASE_CURRENCY ? 1 : x.localeCompare(y)))
    .map(([currency, c]) => ({ currency, total: c / 100 }));
}

/** The date part of an ISO timestamp (before the T). */
export function datePart(iso: string | null | undefined): string {
  if (!iso) return '';
  const i = iso.indexOf('T');
  return i === -1 ? iso : iso.slice(0, i);
}

/** Initials for the avatar: 'Alice Doe' -> 'AD'. */
export function initials(name: string | null | undefined): string {
  if (!name) return '?';
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? parts[0][0] + parts[parts.length - 1][0] : (parts[0] ?? '?').slice(0, 2);
  return letters.toUpperCase();
}

let counter = 0;
/** Locally generated ids (toasts, notifications pushed without an id). */
export function localId(prefix = 'local'): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** A date as YYYY-MM-DD in the device's time zone. */
export function localDateText(d: Date): string {
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`;
}

/** A moment as 'YYYY-MM-DD HH:MM' in the device's time zone (what the date fields accept); '' for no or a bad timestamp. */
export function localDateTimeText(value: Date | string | null | undefined): string {
  if (!value) return '';
  const d = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(d.getTime())) return '';
  return `${localDateText(d)} ${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
}

/** This month so far, as YYYY-MM-DD dates: the first of the month to today (a statement's default period). */
export function thisMonth(now: Date = new Date()): { from: string; to: string } {
  return { from: localDateText(new Date(now.getFullYear(), now.getMonth(), 1)), to: localDateText(now) };
}

/** An exchange rate as typed by an admin: up to 8 decimals, at least 2 ('1.0842', '0.92'). */
export function formatRate(value: number | string, tag: string = locale()): string {
  const n = Number(value);
  return new Intl.NumberFormat(tag, { minimumFractionDigits: 2, maximumFractionDigits: 8 }).format(Number.isFinite(n) ? n : 0);
}

/** An interest rate, percent a year: 2 to 4 decimals ('2.00', '2.125'). */
export function formatInterestRate(value: number | string, tag: string = locale()): string {
  const n = Number(value);
  return new Intl.NumberFormat(tag, { minimumFractionDigits: 2, maximumFractionDigits: 4 }).format(Number.isFinite(n) ? n : 0);
}

/**
 * Interest accrued and not paid yet: kept to the 1/10000 of a cent, so shown
 * with 4 to 6 decimals ('$0.1235' would hide what the next days add):
 * '$0.123456', '$1.2000'.
 */
export function formatAccrued(value: number | string | null | undefined, currency: string = BASE_CURRENCY, tag: string = locale()): string {
  const n = Number(value ?? 0);
  const safe = Number.isFinite(n) ? n : 0;
  const code = (currency || BASE_CURRENCY).trim().toUpperCase();
  try {
    return new Intl.NumberFormat(tag, { style: 'currency', currency: code, minimumFractionDigits: 4, maximumFractionDigits: 6 }).format(safe);
  } catch {
    return `${formatNumber(safe, undefined, tag)} ${code}`;
  }
}
