import {
  dailyLimitError,
  FIRST_RUN_FORMAT_MESSAGE,
  FIRST_RUN_PAST_MESSAGE,
  INVALID_AMOUNT_MESSAGE,
  isMoneyText,
  isValidAmount,
  moneyRequestFormError,
  parseLocalDate,
  parseLocalDateTime,
  payeeFormError,
  scheduleFormError,
  scheduleTimes,
  statementFormError,
  toRfc3339,
  transferFormError,
  UNTIL_BEFORE_MESSAGE,
  UNTIL_FORMAT_MESSAGE,
  validateAccountForm,
  validateFundsForm,
  type ScheduleFormValues,
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

describe('dates typed as text (jest runs in UTC: local time is UTC)', () => {
  it('parses YYYY-MM-DD HH:MM (or with a T) and refuses what names no moment', () => {
    expect(parseLocalDateTime('2030-01-02 09:30')?.toISOString()).toBe('2030-01-02T09:30:00.000Z');
    expect(parseLocalDateTime(' 2030-01-02T23:59 ')?.toISOString()).toBe('2030-01-02T23:59:00.000Z');
    for (const bad of ['', '2030-01-02', '2030-1-2 9:30', '2030-02-30 10:00', '2030-01-02 24:00', '2030-01-02 10:60', '02/01/2030 09:30']) {
      expect(parseLocalDateTime(bad)).toBeNull();
    }
  });

  it('parses YYYY-MM-DD as local midnight', () => {
    expect(parseLocalDate('2028-02-29')?.toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(parseLocalDate('2027-02-29')).toBeNull();
    expect(parseLocalDate('2027-13-01')).toBeNull();
    expect(parseLocalDate('2027-01-01 10:00')).toBeNull();
  });

  it('writes RFC 3339 in UTC with whole seconds', () => {
    expect(toRfc3339(new Date('2030-01-02T09:30:00.123Z'))).toBe('2030-01-02T09:30:00Z');
  });
});

describe('scheduled transfer form', () => {
  const now = new Date('2030-01-01T12:00:00Z');
  const ok: ScheduleFormValues = {
    from: '100200300',
    to: '900800700',
    amount: '10',
    description: '',
    firstRun: '2030-01-02 09:30',
    frequency: 'weekly',
    until: '',
  };

  it('accepts a complete form, in order names the first problem', () => {
    expect(scheduleFormError(ok, now)).toBeNull();
    expect(scheduleFormError({ ...ok, from: null }, now)).toBe('Amount, From Account, Recipient and First run are required.');
    expect(scheduleFormError({ ...ok, firstRun: ' ' }, now)).toBe('Amount, From Account, Recipient and First run are required.');
    expect(scheduleFormError({ ...ok, amount: '1.005' }, now)).toBe(INVALID_AMOUNT_MESSAGE);
    expect(scheduleFormError({ ...ok, firstRun: 'tomorrow' }, now)).toBe(FIRST_RUN_FORMAT_MESSAGE);
    expect(scheduleFormError({ ...ok, firstRun: '2030-01-01 11:58' }, now)).toBe(FIRST_RUN_PAST_MESSAGE);
    expect(scheduleFormError({ ...ok, until: '2030-01-0x' }, now)).toBe(UNTIL_FORMAT_MESSAGE);
    expect(scheduleFormError({ ...ok, until: '2030-01-01' }, now)).toBe(UNTIL_BEFORE_MESSAGE);
    expect(scheduleFormError({ ...ok, until: '2030-01-02' }, now)).toBeNull();
  });

  it('the current minute is not the past; a single run ignores the end date', () => {
    expect(scheduleFormError({ ...ok, firstRun: '2030-01-01 12:00' }, now)).toBeNull();
    expect(scheduleFormError({ ...ok, firstRun: '2030-01-01 11:59' }, now)).toBeNull();
    expect(scheduleFormError({ ...ok, frequency: 'once', until: 'garbage' }, now)).toBeNull();
  });

  it('sends RFC 3339: the end date through its last second; the current minute as a few seconds from now', () => {
    expect(scheduleTimes({ ...ok, until: '2030-03-31' }, now)).toEqual({ run_at: '2030-01-02T09:30:00Z', until: '2030-03-31T23:59:59Z' });
    expect(scheduleTimes({ ...ok, until: '2030-03-31 08:00' }, now)).toEqual({ run_at: '2030-01-02T09:30:00Z', until: '2030-03-31T08:00:00Z' });
    expect(scheduleTimes({ ...ok, frequency: 'once', until: '2030-03-31' }, now)).toEqual({ run_at: '2030-01-02T09:30:00Z' });
    expect(scheduleTimes({ ...ok, firstRun: '2030-01-01 12:00' }, now)).toEqual({ run_at: '2030-01-01T12:00:05Z' });
  });
});

describe('payee, limit and statement forms', () => {
  it('payee: nickname and number required, nickname at most 100 characters', () => {
    expect(payeeFormError({ nickname: ' ', accountNumber: '900800700' })).toBe('Nickname and account number are required.');
    expect(payeeFormError({ nickname: 'x'.repeat(101), accountNumber: '900800700' })).toBe('Nickname can be at most 100 characters.');
    expect(payeeFormError({ nickname: 'Landlord', accountNumber: '900800700' })).toBeNull();
  });

  it('daily limit: required, money of 0 or more', () => {
    expect(dailyLimitError('')).toBe('Daily limit is required.');
    expect(dailyLimitError('-5')).toBe('Daily limit must be 0 or more, with at most 2 decimals.');
    expect(dailyLimitError('1.005')).toBe('Daily limit must be 0 or more, with at most 2 decimals.');
    expect(dailyLimitError('0')).toBeNull();
    expect(dailyLimitError('2500.50')).toBeNull();
  });

  it('statement: account and dates required, real dates, from not after to', () => {
    expect(statementFormError({ account: null, from: '2026-05-01', to: '2026-05-31' })).toBe('Account, From and To are required.');
    expect(statementFormError({ account: '100200300', from: '2026-05-01', to: '31/05/2026' })).toBe('Dates must be written as YYYY-MM-DD.');
    expect(statementFormError({ account: '100200300', from: '2026-06-01', to: '2026-05-31' })).toBe('From must be on or before To.');
    expect(statementFormError({ account: '100200300', from: '2026-05-31', to: '2026-05-31' })).toBeNull();
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
