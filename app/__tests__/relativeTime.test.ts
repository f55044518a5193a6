import { formatFullDate, formatRelativeTime } from '../utils/relativeTime';

const now = Date.parse('2026-11-21T12:00:00Z');
const ago = (ms: number) => new Date(now - ms).toISOString();
const MIN = 60_000;
const HOUR = 60 * MIN;

describe('formatRelativeTime', () => {
  it('counts minutes under an hour, singular for 1', () => {
    expect(formatRelativeTime(ago(0), now)).toBe('0 minutes ago');
    expect(formatRelativeTime(ago(59_000), now)).toBe('0 minutes ago');
    expect(formatRelativeTime(ago(MIN), now)).toBe('1 minute ago');
    expect(formatRelativeTime(ago(2 * MIN), now)).toBe('2 minutes ago');
    expect(formatRelativeTime(ago(59 * MIN + 59_000), now)).toBe('59 minutes ago');
  });

  it('counts hours under a day, singular for 1', () => {
    expect(formatRelativeTime(ago(HOUR), now)).toBe('1 hour ago');
    expect(formatRelativeTime(ago(HOUR + 59 * MIN), now)).toBe('1 hour ago');
    expect(formatRelativeTime(ago(2 * HOUR), now)).toBe('2 hours ago');
    expect(formatRelativeTime(ago(23 * HOUR + 59 * MIN), now)).toBe('23 hours ago');
  });

  it('shows the full date (month, day, year, hour, minute) from 24 hours on', () => {
    expect(formatRelativeTime(ago(24 * HOUR), now)).toBe('Nov 20, 2026, 12:00 PM');
    expect(formatRelativeTime('2025-03-04T08:05:00Z', now)).toBe('Mar 4, 2025, 08:05 AM');
    expect(formatFullDate(new Date('2025-12-31T23:59:00Z'))).toBe('Dec 31, 2025, 11:59 PM');
  });

  it('accepts Date and epoch values, and copes with the future and bad input', () => {
    expect(formatRelativeTime(new Date(now - 5 * MIN), now)).toBe('5 minutes ago');
    expect(formatRelativeTime(now - 3 * HOUR, now)).toBe('3 hours ago');
    expect(formatRelativeTime(new Date(now + 10 * MIN), now)).toBe('0 minutes ago');
    expect(formatRelativeTime('not a date', now)).toBe('');
  });
});
