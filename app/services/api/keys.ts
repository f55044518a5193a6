import type { QueryClient } from '@tanstack/react-query';

import type { ApprovalStatus, HistoryQuery, NotificationFilter, Role } from './types';

/** The first element of every key: invalidating a family refreshes all its queries. */
export const queryFamilies = {
  me: ['me'],
  accounts: ['accounts'],
  accountTypes: ['account-types'],
  accountLookup: ['account-lookup'],
  transactions: ['transactions'],
  moneyRequests: ['money-requests'],
  dashboard: ['dashboard'],
  admin: ['admin'],
  notifications: ['notifications'],
  payees: ['payees'],
  limits: ['limits'],
  scheduledTransfers: ['scheduled-transfers'],
  config: ['config'],
  security: ['security'],
  fxRates: ['fx-rates'],
  preferences: ['preferences'],
} as const;

const f = queryFamilies;

/** Query keys, one family per resource. No key array is typed anywhere else. */
export const queryKeys = {
  me: f.me,
  accounts: (scope: 'mine' | 'all') => [...f.accounts, scope] as const,
  accountTypes: f.accountTypes,
  accountLookup: (accountNumber: string) => [...f.accountLookup, accountNumber] as const,
  transactions: (role: Role, query: HistoryQuery) => [...f.transactions, role, query] as const,
  /** Paged history (load more); same family as `transactions`. */
  transactionPages: (role: Role, query: HistoryQuery) => [...f.transactions, role, 'pages', query] as const,
  moneyRequests: (role: Role) => [...f.moneyRequests, role] as const,
  dashboardSummary: (role: Role) => [...f.dashboard, 'summary', role] as const,
  dashboardMonthly: (role: Role) => [...f.dashboard, 'monthly', role] as const,
  adminUsers: [...f.admin, 'users'] as const,
  auditLogPages: (limit: number) => [...f.admin, 'audit-logs', 'pages', limit] as const,
  /** Same family as the audit log's pages: refreshing the log re-checks its chain. */
  auditChain: [...f.admin, 'audit-logs', 'verify'] as const,
  /** Four eyes: the approvals of one status (undefined: all); the sidebar's count is the pending list's length. */
  approvals: (status: ApprovalStatus | undefined) => [...f.admin, 'approvals', status ?? 'all'] as const,
  /** Every approvals list (to refresh them all). */
  approvalLists: [...f.admin, 'approvals'] as const,
  /** The account types with their interest rates, as an admin edits them. */
  adminAccountTypes: [...f.admin, 'account-types'] as const,
  /** Interest accrued on one account; in the accounts family, so a money change refreshes it. */
  accountInterest: (id: number) => [...f.accounts, 'interest', id] as const,
  /** GET /api/fx-rates: the pairs an admin set. */
  fxRates: f.fxRates,
  /** The caller's home currency. */
  preferences: f.preferences,
  notifications: (filter: NotificationFilter) => [...f.notifications, filter] as const,
  payees: f.payees,
  /** The caller's daily limits, one row per currency. */
  limits: [...f.limits, 'mine'] as const,
  scheduledTransfers: [...f.scheduledTransfers, 'list'] as const,
  /** Past runs of one series; same family, so a money change refreshes them too. */
  scheduledRuns: (id: number) => [...f.scheduledTransfers, 'runs', id] as const,
  /** GET /api/config (no token needed). */
  config: f.config,
  /** The caller's two-factor state. */
  twoFactor: [...f.security, 'two-factor'] as const,
  /** The caller's signed-in sessions. */
  sessions: [...f.security, 'sessions'] as const,
  /** The caller's personal access tokens. */
  accessTokens: [...f.security, 'access-tokens'] as const,
  /** The apps the caller connected. */
  connectedApps: [...f.security, 'connected-apps'] as const,
  /** What the consent page shows for one app's request. */
  consent: (clientId: string, scope: string) => [...f.security, 'consent', clientId, scope] as const,
};

/**
 * What a change of money touches: balances (accounts), the history, the
 * requests, the dashboard figures, what today's transfers used of the daily
 * limit, and the scheduled series (a run moves their next date on). Every mutation that moves or creates
 * money (transfer, request answered, account opened, edited or closed) and
 * the server's `resync` call this one helper.
 */
export const MONEY_FAMILIES = [f.accounts, f.transactions, f.moneyRequests, f.dashboard, f.limits, f.scheduledTransfers] as const;

export function invalidateMoneyQueries(client: QueryClient): Promise<void> {
  return Promise.all(MONEY_FAMILIES.map((queryKey) => client.invalidateQueries({ queryKey }))).then(() => undefined);
}
