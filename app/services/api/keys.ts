import type { HistoryQuery, NotificationFilter, Role } from './types';

/** Query keys, one family per resource. Invalidate a family with its first element. */
export const queryKeys = {
  me: ['me'] as const,
  accounts: (scope: 'mine' | 'all') => ['accounts', scope] as const,
  accountTypes: ['account-types'] as const,
  accountLookup: (accountNumber: string) => ['account-lookup', accountNumber] as const,
  transactions: (role: Role, query: HistoryQuery) => ['transactions', role, query] as const,
  /** Paged history (load more); same family as `transactions`. */
  transactionPages: (role: Role, query: HistoryQuery) => ['transactions', role, 'pages', query] as const,
  moneyRequests: (role: Role) => ['money-requests', role] as const,
  dashboardSummary: (role: Role) => ['dashboard', 'summary', role] as const,
  dashboardMonthly: (role: Role) => ['dashboard', 'monthly', role] as const,
  adminUsers: ['admin', 'users'] as const,
  auditLogs: ['admin', 'audit-logs'] as const,
  /** Same family as `auditLogs`: refreshing the log re-checks its chain. */
  auditChain: ['admin', 'audit-logs', 'verify'] as const,
  notifications: (filter: NotificationFilter) => ['notifications', filter] as const,
};
