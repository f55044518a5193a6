/**
 * Form rules of the spec (§5), kept out of the screens so they are tested
 * once and read in one place. Each message is an English sentence that is
 * also its i18n key: the functions answer it in the user's language.
 */
import { t } from '../i18n';

/**
 * Money as typed: digits, then optionally a decimal separator and one or two
 * decimals (no sign, no exponent, no thousands separator). The separator is
 * a point or a comma: the iOS decimal pad types "12,50" in comma-decimal
 * locales (Spanish, German...).
 */
const MONEY_TEXT = /^\d+([.,]\d{1,2})?$/;

/** Text that is a non-negative amount of money with at most two decimals. */
export function isMoneyText(value: string): boolean {
  return MONEY_TEXT.test(value.trim());
}

/** A typed amount as the API takes it: '12,50' → '12.50' (the text unchanged when it is not money). */
export function amountForApi(value: string): string {
  const text = value.trim();
  return isMoneyText(text) ? text.replace(',', '.') : text;
}

/** A typed amount that the API accepts as positive money: at least 0.01, at most 2 decimals. */
export function isValidAmount(value: string): boolean {
  return isMoneyText(value) && Number(amountForApi(value)) >= 0.01;
}

/** Shown when a typed amount is not valid money (the spec gives no wording; the server's rule). */
export const INVALID_AMOUNT_MESSAGE = 'Amount must be at least 0.01, with at most 2 decimals.';

export interface AccountFormValues {
  accountNumber: string;
  balance: string;
  typeId: number | null;
}

export type AccountFormErrors = Partial<Record<keyof AccountFormValues, string>>;

/** Account form (spec §5): number required, balance not negative (2 decimals at most), type required. */
export function validateAccountForm(form: AccountFormValues): AccountFormErrors {
  const errors: AccountFormErrors = {};
  if (!form.accountNumber.trim()) errors.accountNumber = t('Account number is required');
  const typed = form.balance.trim() === '' ? '0' : form.balance.trim();
  const balance = Number(amountForApi(typed));
  if (!Number.isFinite(balance)) errors.balance = t('Balance must be a number');
  else if (balance < 0) errors.balance = t('Balance cannot be negative');
  else if (!isMoneyText(typed)) errors.balance = t('Balance can have at most 2 decimals');
  if (form.typeId === null) errors.typeId = t('Account type is required');
  return errors;
}

/** Transfer form (spec §5): the first problem as a toast text, or null. */
export function transferFormError(form: { from: string | null; amount: string; to: string }): string | null {
  if (!form.amount.trim() || !form.from || !form.to.trim()) return t('Amount, From Account, and Recipient are required.');
  if (!isValidAmount(form.amount)) return t(INVALID_AMOUNT_MESSAGE);
  return null;
}

/** Money request form (spec §5): the first problem as a toast text, or null. */
export function moneyRequestFormError(form: { from: string | null; amount: string; to: string }): string | null {
  if (!form.amount.trim() || !form.from || !form.to.trim()) return t('Amount, From Account, and To Account are required.');
  if (!isValidAmount(form.amount)) return t(INVALID_AMOUNT_MESSAGE);
  return null;
}

export interface FundsFormValues {
  amount: string;
  description: string;
}

export type FundsFormErrors = Partial<Record<keyof FundsFormValues, string>>;

/** An administrator's deposit or withdrawal: a positive amount (2 decimals at most), a description of at most 255 characters. */
export function validateFundsForm(form: FundsFormValues): FundsFormErrors {
  const errors: FundsFormErrors = {};
  if (!form.amount.trim()) errors.amount = t('Amount is required');
  else if (!isValidAmount(form.amount)) errors.amount = t(INVALID_AMOUNT_MESSAGE);
  if (form.description.trim().length > 255) errors.description = t('Description can be at most 255 characters');
  return errors;
}

// ----------------------------------------------------------------- dates typed as text

const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME_TEXT = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})$/;

/** A local Date from its parts, or null when they name no real moment (2026-02-30, 24:00). */
function localDate(y: number, mo: number, d: number, h = 0, mi = 0): Date | null {
  if (h > 23 || mi > 59) return null;
  const date = new Date(y, mo - 1, d, h, mi, 0, 0);
  return date.getFullYear() === y && date.getMonth() === mo - 1 && date.getDate() === d ? date : null;
}

/** 'YYYY-MM-DD' as local midnight, or null. */
export function parseLocalDate(text: string): Date | null {
  const m = DATE_TEXT.exec(text.trim());
  return m ? localDate(+m[1], +m[2], +m[3]) : null;
}

/** 'YYYY-MM-DD HH:MM' (or with a T) in the device's time zone, or null. */
export function parseLocalDateTime(text: string): Date | null {
  const m = DATE_TIME_TEXT.exec(text.trim());
  return m ? localDate(+m[1], +m[2], +m[3], +m[4], +m[5]) : null;
}

/** RFC 3339 in UTC, whole seconds: '2026-11-24T09:30:00Z'. */
export function toRfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** An end date: 'YYYY-MM-DD' means the end of that local day; 'YYYY-MM-DD HH:MM' that moment. */
function parseUntil(text: string): Date | null {
  const day = parseLocalDate(text);
  if (day) return new Date(day.getFullYear(), day.getMonth(), day.getDate(), 23, 59, 59);
  return parseLocalDateTime(text);
}

// ----------------------------------------------------------------- payees, limits, schedules, statements

export const PAYEE_NICKNAME_MAX = 100;

/** Save-as-payee form: the first problem, or null. */
export function payeeFormError(form: { nickname: string; accountNumber: string }): string | null {
  if (!form.nickname.trim() || !form.accountNumber.trim()) return t('Nickname and account number are required.');
  if (form.nickname.trim().length > PAYEE_NICKNAME_MAX) return t('Nickname can be at most {{count}} characters.', { count: PAYEE_NICKNAME_MAX });
  return null;
}

/** An admin's daily limit for a customer: required, money of 0 or more (0: no transfers to others). */
export function dailyLimitError(amount: string): string | null {
  if (!amount.trim()) return t('Daily limit is required.');
  if (!isMoneyText(amount)) return t('Daily limit must be 0 or more, with at most 2 decimals.');
  return null;
}

export type ScheduleFrequencyValue = 'once' | 'daily' | 'weekly' | 'monthly';

export interface ScheduleFormValues {
  from: string | null;
  to: string;
  amount: string;
  description: string;
  /** 'YYYY-MM-DD HH:MM', local time. */
  firstRun: string;
  frequency: ScheduleFrequencyValue;
  /** Optional, ignored for a single run: 'YYYY-MM-DD' (through that day) or 'YYYY-MM-DD HH:MM'. */
  until: string;
}

export const FIRST_RUN_FORMAT_MESSAGE = 'First run: enter a date and time as YYYY-MM-DD HH:MM.';
export const FIRST_RUN_PAST_MESSAGE = 'First run cannot be in the past.';
export const UNTIL_FORMAT_MESSAGE = 'End date: enter a date as YYYY-MM-DD (or YYYY-MM-DD HH:MM).';
export const UNTIL_BEFORE_MESSAGE = 'End date must be after the first run.';

/** Scheduled transfer form: the first problem as a toast text, or null. */
export function scheduleFormError(form: ScheduleFormValues, now: Date = new Date()): string | null {
  if (!form.amount.trim() || !form.from || !form.to.trim() || !form.firstRun.trim()) {
    return t('Amount, From Account, Recipient and First run are required.');
  }
  if (!isValidAmount(form.amount)) return t(INVALID_AMOUNT_MESSAGE);
  const first = parseLocalDateTime(form.firstRun);
  if (!first) return t(FIRST_RUN_FORMAT_MESSAGE);
  // A minute's grace: 'now' typed to the minute is not the past.
  if (first.getTime() < now.getTime() - 60_000) return t(FIRST_RUN_PAST_MESSAGE);
  if (form.frequency !== 'once' && form.until.trim()) {
    const until = parseUntil(form.until);
    if (!until) return t(UNTIL_FORMAT_MESSAGE);
    if (until.getTime() < first.getTime()) return t(UNTIL_BEFORE_MESSAGE);
  }
  return null;
}

/** The times of a valid schedule form as the API takes them (RFC 3339, UTC). */
export function scheduleTimes(
  form: Pick<ScheduleFormValues, 'firstRun' | 'until' | 'frequency'>,
  now: Date = new Date(),
): { run_at: string; until?: string } {
  const first = parseLocalDateTime(form.firstRun);
  if (!first) throw new Error(FIRST_RUN_FORMAT_MESSAGE);
  // Typed as the current minute: a few seconds from now (a time already past is refused as "in the past").
  const runAt = first.getTime() < now.getTime() + 5_000 ? new Date(now.getTime() + 5_000) : first;
  // A single run has no end date.
  const until = form.frequency !== 'once' && form.until.trim() ? parseUntil(form.until) : null;
  return { run_at: toRfc3339(runAt), ...(until ? { until: toRfc3339(until) } : {}) };
}

/** Statement form: account and both dates required, real dates, from not after to. */
export function statementFormError(form: { account: string | null; from: string; to: string }): string | null {
  if (!form.account || !form.from.trim() || !form.to.trim()) return t('Account, From and To are required.');
  const from = parseLocalDate(form.from);
  const to = parseLocalDate(form.to);
  if (!from || !to) return t('Dates must be written as YYYY-MM-DD.');
  if (from.getTime() > to.getTime()) return t('From must be on or before To.');
  return null;
}

// ----------------------------------------------------------------- a bank's books (contract §8)

/** Exchange form: the first problem as a toast text, or null. */
export function exchangeFormError(form: { from: string | null; amount: string; to: string }): string | null {
  if (!form.amount.trim() || !form.from || !form.to.trim()) return t('Amount, From Account, and To Account are required.');
  if (!isValidAmount(form.amount)) return t(INVALID_AMOUNT_MESSAGE);
  return null;
}

/** A positive decimal with up to `places` decimals, a point or a comma ('1,0842'). */
function isDecimalText(value: string, places: number): boolean {
  return new RegExp(`^\\d+([.,]\\d{1,${places}})?$`).test(value.trim());
}

/** A typed rate as the API takes it: '1,0842' → '1.0842'. */
export function decimalForApi(value: string): string {
  return value.trim().replace(',', '.');
}

/** An exchange rate: positive, at most 8 decimals (contract §8). */
export function fxRateError(rate: string): string | null {
  if (!rate.trim()) return t('Rate is required.');
  if (!isDecimalText(rate, 8) || Number(decimalForApi(rate)) <= 0) return t('Rate must be a positive number with at most 8 decimals.');
  return null;
}

/** An account type's interest rate: percent a year, 0 to 100, at most 4 decimals. */
export function interestRateError(rate: string): string | null {
  if (!rate.trim()) return t('Interest rate is required.');
  if (!isDecimalText(rate, 4) || Number(decimalForApi(rate)) > 100) return t('Interest rate must be between 0 and 100, with at most 4 decimals.');
  return null;
}

/** A reversal's reason: the ledger rows say "Reversal of transaction N: <reason>" in 255 characters. */
export const REVERSAL_REASON_MAX = 215;
/** A rejection's reason. */
export const REJECTION_REASON_MAX = 255;

/** A reason (a reversal, a rejection): a non-empty sentence of at most `max` characters. */
export function reasonError(reason: string, max: number): string | null {
  if (!reason.trim()) return t('A reason is required.');
  if (reason.trim().length > max) return t('A reason can be at most {{count}} characters.', { count: max });
  return null;
}
