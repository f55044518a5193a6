import { locale, t } from '../i18n';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** 'Nov 21, 2026, 09:05 AM' (en-US), '21 nov 2026, 9:05' (es-ES): month, day, year, hour and minute, in the device's time zone and locale. */
export function formatFullDate(date: Date, tag: string = locale()): string {
  return date.toLocaleString(tag, {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

/**
 * Notification time (spec §2): 'N minutes ago' under an hour ('1 minute ago'),
 * 'N hours ago' under a day ('1 hour ago'), otherwise the full date.
 * Times in the future (clock skew) count as 0 minutes ago.
 */
export function formatRelativeTime(value: string | number | Date, now: number = Date.now()): string {
  const date = value instanceof Date ? value : new Date(value);
  const time = date.getTime();
  if (Number.isNaN(time)) return '';
  const elapsed = Math.max(0, now - time);
  if (elapsed < HOUR) {
    return t('{{count}} minutes ago', { count: Math.floor(elapsed / MINUTE) });
  }
  if (elapsed < DAY) {
    return t('{{count}} hours ago', { count: Math.floor(elapsed / HOUR) });
  }
  return formatFullDate(date);
}
