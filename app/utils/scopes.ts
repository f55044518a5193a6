import type { Role, Scope } from '../services/api/types';

/** The scopes a token may hold, in plain words (the server's own wording, contract §9). */
export const SCOPE_LABELS: Record<Scope, string> = {
  'accounts:read': 'See your accounts and their balances',
  'transactions:read': 'See your transactions, money requests and statements',
  'transfers:write': 'Send money and answer money requests from your accounts',
  'admin:read': 'See users, accounts and the audit log of the whole bank',
  'admin:write': 'Change users, roles and limits, and move money in and out of accounts',
};

/** The scopes a user of this role may give a token: customers' or administrators'. */
export function scopesFor(role: Role | undefined): Scope[] {
  return role === 'Admin' ? ['admin:read', 'admin:write'] : ['accounts:read', 'transactions:read', 'transfers:write'];
}

/** A token's life in days: a whole number from 1 to 365, or an error sentence. */
export function checkTokenDays(value: string): string | null {
  const n = Number(value);
  return /^\d+$/.test(value.trim()) && n >= 1 && n <= 365 ? null : 'Enter a whole number of days from 1 to 365';
}
