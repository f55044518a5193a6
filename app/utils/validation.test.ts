import {
  INVALID_AMOUNT_MESSAGE,
  isMoneyText,
  isValidAmount,
  moneyRequestFormError,
  transferFormError,
  validateAccountForm,
  validateFundsForm,
} from './validation';

describe('amounts', () => {
  it('money text: digits, at most 2 decimals, no sign or exponent', () => {
    for (const ok of ['0', '0.1', '12.50', ' 7 ', '1000000']) expect(isMoneyText(ok)).toBe(true);
    for (const bad of ['', '-1', '1.234', '1e3', '.5', '1.', 'abc', '+2']) expect(isMoneyText(bad)).toBe(false);
  });

  it('a valid amount is at least 0.01', () => {
    expect(isValidAmount('0.01')).toBe(true);
    expect(isValidAmount('0')).toBe(false);
    expect(isValidAmount('0.00')).toBe(false);
    expect(isValidAmount('0.001')).toBe(false);
  });
});

describe('form rules', () => {
  it('account form: number required, balance not negative, 2 decimals, type required', () => {
    expect(validateAccountForm({ accountNumber: ' ', balance: '-5', typeId: null })).toEqual({
      accountNumber: 'Account number is required',
      balance: 'Balance cannot be negative',
      typeId: 'Account type is required',
    });
    expect(validateAccountForm({ accountNumber: '123', balance: '1.234', typeId: 1 })).toEqual({
      balance: 'Balance can have at most 2 decimals',
    });
    expect(validateAccountForm({ accountNumber: '123', balance: 'x', typeId: 1 })).toEqual({ balance: 'Balance must be a number' });
    expect(validateAccountForm({ accountNumber: '123', balance: '', typeId: 1 })).toEqual({});
  });

  it('transfer and request forms name their required fields, then the amount rule', () => {
    const empty = { from: null, amount: '', to: '' };
    expect(transferFormError(empty)).toBe('Amount, From Account, and Recipient are required.');
    expect(moneyRequestFormError(empty)).toBe('Amount, From Account, and To Account are required.');
    const bad = { from: '100200300', amount: '0', to: '900800700' };
    expect(transferFormError(bad)).toBe(INVALID_AMOUNT_MESSAGE);
    expect(moneyRequestFormError(bad)).toBe(INVALID_AMOUNT_MESSAGE);
    expect(transferFormError({ ...bad, amount: '12.50' })).toBeNull();
  });
});

describe('validateFundsForm (an administrator deposit or withdrawal)', () => {
  it('needs a positive amount with at most two decimals', () => {
    expect(validateFundsForm({ amount: '', description: '' })).toEqual({ amount: 'Amount is required' });
    expect(validateFundsForm({ amount: '0', description: '' })).toEqual({ amount: INVALID_AMOUNT_MESSAGE });
    expect(validateFundsForm({ amount: '1.005', description: '' })).toEqual({ amount: INVALID_AMOUNT_MESSAGE });
    expect(validateFundsForm({ amount: '-5', description: '' })).toEqual({ amount: INVALID_AMOUNT_MESSAGE });
    expect(validateFundsForm({ amount: '125.50', description: '' })).toEqual({});
  });

  it('takes a description of at most 255 characters', () => {
    expect(validateFundsForm({ amount: '1', description: 'x'.repeat(255) })).toEqual({});
    expect(validateFundsForm({ amount: '1', description: 'x'.repeat(256) })).toEqual({ description: 'Description can be at most 255 characters' });
  });
});
