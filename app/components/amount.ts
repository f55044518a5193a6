const AMOUNT_RE = /^\d+(\.\d{1,2})?$/;

/** A typed amount that the API accepts as positive money: at least 0.01, at most 2 decimals. */
export function isValidAmount(value: string): boolean {
  const v = value.trim();
  return AMOUNT_RE.test(v) && Number(v) >= 0.01;
}

/** Shown when a typed amount is not valid money (the spec gives no wording; the server's rule). */
export const INVALID_AMOUNT_MESSAGE = 'Amount must be at least 0.01, with at most 2 decimals.';
