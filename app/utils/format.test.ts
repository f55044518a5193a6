import type { Account } from '../services/api/types';
import { balancesByCurrency, currencyOf, datePart, formatMoney, initials, localDateText, localDateTimeText, thisMonth } from './format';

const account = (account_number: string, currency: string, balance: number): Account => ({
  id: 1,
  name: 'Alice Smith',
  account_number,
  account_type_id: 1,
  type_name: 'Checking',
  balance,
  currency,
  created_at: '2026-01-01T00:00:00Z',
  user_id: 2,
});

describe('formatMoney', () => {
  it('writes the currency symbol, 2 decimals and thousands separators (as the server does)', () => {
    expect(formatMoney(1250.5)).toBe('$1,250.50');
    expect(formatMoney('0.1')).toBe('$0.10');
    expect(formatMoney(-3)).toBe('-$3.00');
    expect(formatMoney(1250.5, 'USD')).toBe('$1,250.50');
    expect(formatMoney(12.5, 'EUR')).toBe('€12.50');
    expect(formatMoney(-12.5, 'EUR')).toBe('-€12.50');
    expect(formatMoney(1000000, 'eur')).toBe('€1,000,000.00');
    expect(formatMoney(7, 'GBP')).toBe('£7.00');
  });

  it("writes other ISO codes as Intl does, a code Intl refuses after the number; bad values are zero", () => {
    // Intl puts a no-break space between a code and the number.
    expect(formatMoney(1234.5, 'CHF').replace(/\s/g, ' ')).toBe('CHF 1,234.50');
    expect(formatMoney(undefined, 'XYZ').replace(/\s/g, ' ')).toBe('XYZ 0.00');
    expect(formatMoney(-2, 'NOT-A-CODE')).toBe('-2.00 NOT-A-CODE');
    expect(formatMoney('lots')).toBe('$0.00');
    expect(formatMoney(null, '')).toBe('$0.00');
  });
});

describe('currencyOf', () => {
  const accounts = [account('100200300', 'USD', 1), account('100200399', 'EUR', 2)];
  it("is the first known account's currency, else the base currency", () => {
    expect(currencyOf(accounts, '900800700', '100200399')).toBe('EUR');
    expect(currencyOf(accounts, '100200300', '100200399')).toBe('USD');
    expect(currencyOf(accounts, '900800700')).toBe('USD');
    expect(currencyOf(undefined, '100200399')).toBe('USD');
  });
});

describe('balancesByCurrency', () => {
  it('sums each currency apart, exactly, the base currency first', () => {
    const accounts = [account('A', 'EUR', 300.1), account('B', 'USD', 1250.5), account('C', 'EUR', 7.9), account('D', 'USD', 0.1), account('E', 'CHF', 1)];
    expect(balancesByCurrency(accounts)).toEqual([
      { currency: 'USD', total: 1250.6 },
      { currency: 'CHF', total: 1 },
      { currency: 'EUR', total: 308 },
    ]);
    expect(balancesByCurrency(undefined)).toEqual([]);
  });
});

describe('formatMoney agrees with Intl', () => {
  it('matches en-US currency formatting for dollars', () => {
    const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
    for (const v of [0, 0.005, 1, 12.5, 999.99, 1000, -42.1, 98765.4321]) expect(formatMoney(v)).toBe(usd.format(v));
  });
});

describe('datePart and initials', () => {
  it('keeps the date before the T', () => {
    expect(datePart('2026-05-06T08:09:10Z')).toBe('2026-05-06');
    expect(datePart('2026-05-06')).toBe('2026-05-06');
    expect(datePart(null)).toBe('');
  });

  it('takes first and last initials', () => {
    expect(initials('Alice Mary Doe')).toBe('AD');
    expect(initials('bob')).toBe('BO');
    expect(initials(undefined)).toBe('?');
  });
});

describe('local dates (jest runs in UTC)', () => {
  it('writes YYYY-MM-DD and YYYY-MM-DD HH:MM; nothing for no or a bad timestamp', () => {
    expect(localDateText(new Date('2026-03-04T05:06:07Z'))).toBe('2026-03-04');
    expect(localDateTimeText('2026-03-04T05:06:07Z')).toBe('2026-03-04 05:06');
    expect(localDateTimeText(null)).toBe('');
    expect(localDateTimeText('not a date')).toBe('');
  });

  it("this month: the first to today, a statement's default period", () => {
    expect(thisMonth(new Date('2026-11-24T10:00:00Z'))).toEqual({ from: '2026-11-01', to: '2026-11-24' });
    expect(thisMonth(new Date('2026-01-01T00:00:00Z'))).toEqual({ from: '2026-01-01', to: '2026-01-01' });
  });
});
