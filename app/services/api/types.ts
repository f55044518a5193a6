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
/** A right password with two-factor sign-in on: no token yet, a challenge for `POST /api/auth/2fa/verify`. */
export type TwoFactorChallenge = S['TwoFactorChallenge'];
/** What `POST /api/auth/login` answers: signed in, or the second step comes next. */
export type LoginAnswer = LoginResponse | TwoFactorChallenge;
export type RegisterPayload = S['RegisterInput'];
export type RegisterResponse = S['RegisterResponse'];
export type PasswordResetPayload = S['PasswordResetInput'];
export type MessageResponse = S['Message'];

export type TwoFactorStatus = S['TwoFactorStatus'];
export type TwoFactorSetup = S['TwoFactorSetup'];
export type BackupCodes = S['BackupCodes'];
export type VerifyPayload = S['VerifyInput'];
export type TwoFactorDisablePayload = S['TwoFactorDisableInput'];
/** One signed-in session (sign-in token) of the caller. */
export type SignedInSession = S['Session'];
/** A personal access token as listed (never its text), and one just made (its text, shown once). */
export type AccessToken = S['AccessToken'];
export type NewAccessToken = S['NewAccessToken'];
export type AccessTokenPayload = S['TokenInput'];
export type Scope = S['Scope'];
/** An app the caller connected (an OAuth grant). */
export type ConnectedApp = S['ConnectedApp'];
/** What the consent page shows, and its answer. */
export type ConsentScreen = operations['oauthConsentScreen']['responses'][200]['content']['application/json'];
export type ConsentPayload = NonNullable<operations['oauthConsent']['requestBody']>['content']['application/json'];
/** GET /api/config: what the app may know of the server's configuration. */
export type PublicConfig = S['PublicConfig'];
/** An administrator's deposit or withdrawal. */
export type FundsPayload = S['FundsInput'];

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

// Payees, daily limits, scheduled transfers, statements (contract §6).

/** A saved recipient: GET /api/user/payees. */
export type Payee = S['Payee'];
export type PayeePayload = Omit<S['PayeeInput'], 'user_id'>;

/** One currency's daily outgoing limit and what today's transfers used of it: GET /api/user/limits. */
export type DailyLimit = S['DailyLimit'];
/** An admin's change: an amount, or null for the configured default. */
export type DailyLimitPayload = S['UserLimitInput'];
export type UserLimit = S['UserLimit'];

export type ScheduledTransfer = S['ScheduledTransfer'];
export type ScheduleFrequency = ScheduledTransfer['frequency'];
export type ScheduleStatus = ScheduledTransfer['status'];
export type ScheduledTransferPayload = S['ScheduledTransferInput'];
/** One past occurrence of a series: GET /api/user/scheduled-transfers/{id}/runs. */
export type ScheduledRun = S['ScheduledRun'];

/** GET /api/user/statements: dates are YYYY-MM-DD (UTC days), both included. */
export type StatementQuery = Required<operations['getStatement']['parameters']['query']>;
export type StatementFormat = StatementQuery['format'];
