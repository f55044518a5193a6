import { t } from '../i18n';
import type { Role, Scope } from '../services/api/types';

/**
 * What each scope lets a program do, in plain words and the user's language
 * (the English is the server's own wording, contract §9). Functions, so the
 * text follows a change of language.
 */
const SCOPE_LABELS: Record<Scope, () => string> = {
  'accounts:read': () => t('See your accounts and their balances'),
  'transactions:read': () => t('See your transactions, money requests and statements'),
  'transfers:write': () => t('Send money and answer money requests from your accounts'),
  'admin:read': () => t('See users, accounts and the audit log of the whole bank'),
  'admin:write': () => t('Change users, roles and limits, and move money in and out of accounts'),
};

/**
 * A scope in plain words, in the user's language. The server describes the
 * scopes it sends in English (`{scope, description}`): give its description
 * as the fallback, shown as is for a scope the app does not know yet.
 */
export function scopeLabel(scope: string, fallback = scope): string {
  return Object.prototype.hasOwnProperty.call(SCOPE_LABELS, scope) ? SCOPE_LABELS[scope as Scope]() : fallback;
}

/** The scopes a user of this role may give a token: customers' or administrators'. */
export function scopesFor(role: Role | undefined): Scope[] {
  return role === 'Admin' ? ['admin:read', 'admin:write'] : ['accounts:read', 'transactions:read', 'transfers:write'];
}

/** A token's life in days: a whole number from 1 to 365, or an error sentence. */
export function checkTokenDays(value: string): string | null {
  const n = Number(value);
  return /^\d+$/.test(value.trim()) && n >= 1 && n <= 365 ? null : t('Enter a whole number of days from 1 to 365');
}
