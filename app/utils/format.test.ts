import { datePart, formatMoney, initials } from './format';

describe('formatMoney: the one money formatter (balances, amounts, history in US dollars)', () => {
  it('prefixes $, groups thousands and keeps 2 decimals', () => {
    expect(formatMoney(1250.5)).toBe('$1,250.50');
    expect(formatMoney('0.1')).toBe('$0.10');
    expect(formatMoney(1234567.891)).toBe('$1,234,567.89');
    expect(formatMoney(0)).toBe('$0.00');
  });

  it('puts the sign before the $ and shows junk as $0.00', () => {
    expect(formatMoney(-3)).toBe('-$3.00');
    expect(formatMoney('abc')).toBe('$0.00');
    expect(formatMoney(null)).toBe('$0.00');
    expect(formatMoney(undefined)).toBe('$0.00');
  });

  it('agrees with Intl en-US currency formatting', () => {
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
