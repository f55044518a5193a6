/**
 * Shapes of the Meridian API, from server/openapi.json: `schema.ts` is
 * generated (`npm run gen:api`) and a test fails when it is stale; this file
 * only gives the app's names to its schemas, plus the few client-side shapes
 * the document does not define (query objects, the live push, envelopes).
 */
import type { components, operations } from './schema';

type S = components['schemas'];

export type Role = S['Role'];
export type User = S['User'];

/** An error answer. The server sends `error` and `code`; the spec's first app also read `message`. */
export type ApiErrorBody = Partial<S['Error']> & { message?: string };

export type LoginPayload = S['LoginInput'];
export type LoginResponse = S['LoginResult'];
export type RegisterPayload = S['RegisterInput'];
export type RegisterResponse = S['RegisterResponse'];
export type PasswordResetPayload = S['PasswordResetInput'];
export type MessageResponse = S['Message'];

/** Money as the API sends it: a number with at most two decimals. Inputs may be strings. */
export type Amount = S['Amount'];
export type AmountInput = S['AmountInput'];

export type Account = S['Account'];
export type AccountType = S['AccountType'];
export type AccountPayload = S['AccountInput'];
export type AccountLookup = S['AccountLookup'];

export type Transaction = S['Transaction'];
export type TransactionType = Transaction['transaction_type'];
export type TransferPayload = S['TransferInput'];
export type TransferResponse = S['TransferResponse'];
/** The history's filters and paging (the user and admin endpoints take the same). */
export type HistoryQuery = Omit<NonNullable<operations['getHistory']['parameters']['query']>, 'user_id'>;

/** A page of a list read with `limit` and `before` (= the previous `next_cursor`). */
export interface Page<T> {
  data: T[];
  next_cursor: S['Cursor'];
}

export type MoneyRequestStatus = S['MoneyRequestStatus'];
export type MoneyRequest = S['MoneyRequest'];
export type MoneyRequestPayload = S['MoneyRequestInput'];

/** The `{data: ...}` envelope of several answers. */
export interface DataResponse<T> {
  message?: string;
  data: T;
}

/** A dashboard's money figures in one currency. */
export type CurrencyTotals = S['CurrencyTotals'];
/** Amounts in the base currency (USD) only; counts over every currency; `by_currency` per currency, base first. */
export type DashboardSummary = S['UserSummary'];
export type AdminDashboardSummary = S['AdminSummary'];
export type MonthlyPoint = S['MonthPoint'];

export type AdminUserRow = S['AdminUserRow'];
export type AuditLog = S['AuditRow'];
export type AuditLogPage = S['AuditLogPage'];
/** GET /api/admin/audit-logs/verify: whether the audit log's hash chain is intact. */
export type AuditChainVerification = S['AuditChainReport'];

export type NotificationFilter = NonNullable<NonNullable<operations['listNotifications']['parameters']['query']>['filter']>;

/** A stored notification as GET /api/user/notifications returns it. */
export type ServerNotification = S['Notification'];

/** A live push on /ws (fields may be missing from older servers: the app fills them in). */
export type PushedNotification = Partial<S['LiveNotification']> & { message: string };

// ---------------------------------------------------------------------------
// Payees, daily limits, scheduled transfers, statements (contract §6).
// TEMPORARY: written from the contract until server/openapi.json documents
// them; then these become aliases of the generated schemas, like the rest.

/** A saved recipient: GET /api/user/payees. */
export interface Payee {
  id: number;
  nickname: string;
  account_number: string;
  holder_name: string;
  created_at: string;
}
export interface PayeePayload {
  nickname: string;
  account_number: string;
}

/** One currency's daily outgoing limit and what today's transfers used of it: GET /api/user/limits. */
export interface DailyLimit {
  daily_transfer_limit: Amount;
  used_today: Amount;
  currency: string;
}
export interface DailyLimitPayload {
  daily_transfer_limit: AmountInput;
}

export type ScheduleFrequency = 'once' | 'daily' | 'weekly' | 'monthly';
export type ScheduleStatus = 'active' | 'completed' | 'cancelled';
export interface ScheduledTransfer {
  id: number;
  account_id: string;
  to_account_id: string;
  amount: Amount;
  description: string;
  frequency: ScheduleFrequency;
  next_run_at: string | null;
  until?: string | null;
  status: ScheduleStatus;
  created_at: string;
}
export interface ScheduledTransferPayload {
  account_id: string;
  to_account_id: string;
  amount: AmountInput;
  description: string;
  /** RFC 3339, not in the past. */
  run_at: string;
  frequency: ScheduleFrequency;
  until?: string;
}
/** One past occurrence of a series: GET /api/user/scheduled-transfers/{id}/runs. */
export interface ScheduledRun {
  run_at: string;
  status: 'succeeded' | 'failed';
  reason?: string | null;
  transaction_id?: number | null;
}

export type StatementFormat = 'csv' | 'pdf';
/** GET /api/user/statements: dates are YYYY-MM-DD, both included. */
export interface StatementQuery {
  account_id: string;
  from: string;
  to: string;
  format: StatementFormat;
}
