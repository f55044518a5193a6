/**
 * Form rules of the spec (§5), kept out of the screens so they are tested
 * once and read in one place.
 */

/** Money as typed: digits, then optionally a point and one or two decimals (no sign, no exponent). */
const MONEY_TEXT = /^\d+(\.\d{1,2})?$/;

/** Text that is a non-negative amount of money with at most two decimals. */
export function isMoneyText(value: string): boolean {
  return MONEY_TEXT.test(value.trim());
}

/** A typed amount that the API accepts as positive money: at least 0.01, at most 2 decimals. */
export function isValidAmount(value: string): boolean {
  return isMoneyText(value) && Number(value.trim()) >= 0.01;
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
  if (!form.accountNumber.trim()) errors.accountNumber = 'Account number is required';
  const typed = form.balance.trim() === '' ? '0' : form.balance.trim();
  const balance = Number(typed);
  if (!Number.isFinite(balance)) errors.balance = 'Balance must be a number';
  else if (balance < 0) errors.balance = 'Balance cannot be negative';
  else if (!isMoneyText(typed)) errors.balance = 'Balance can have at most 2 decimals';
  if (form.typeId === null) errors.typeId = 'Account type is required';
  return errors;
}

/** Transfer form (spec §5): the first problem as a toast text, or null. */
export function transferFormError(form: { from: string | null; amount: string; to: string }): string | null {
  if (!form.amount.trim() || !form.from || !form.to.trim()) return 'Amount, From Account, and Recipient are required.';
  if (!isValidAmount(form.amount)) return INVALID_AMOUNT_MESSAGE;
  return null;
}

/** Money request form (spec §5): the first problem as a toast text, or null. */
export function moneyRequestFormError(form: { from: string | null; amount: string; to: string }): string | null {
  if (!form.amount.trim() || !form.from || !form.to.trim()) return 'Amount, From Account, and To Account are required.';
  if (!isValidAmount(form.amount)) return INVALID_AMOUNT_MESSAGE;
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
  if (!form.amount.trim()) errors.amount = 'Amount is required';
  else if (!isValidAmount(form.amount)) errors.amount = INVALID_AMOUNT_MESSAGE;
  if (form.description.trim().length > 255) errors.description = 'Description can be at most 255 characters';
  return errors;
}
