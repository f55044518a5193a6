/**
 * Shapes of the Meridian API, from server/openapi.json: `schema.ts` is
 * generated (`npm run gen:api`) and a test fails when it is stale; this file
 * only gives the app's names to its schemas, plus the few client-side shapes
 * the document does not define (query objects, the live push, envelopes).
 */
import type { components, operations, paths } from './schema';
import type { Answer } from './typed';

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


export type MoneyRequestStatus = S['MoneyRequestStatus'];
export type MoneyRequest = S['MoneyRequest'];
export type MoneyRequestPayload = S['MoneyRequestInput'];

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

// A bank's books (contract §8): exchange, corrections, four eyes, interest,
// the home currency. Named by the path that answers them.

/** What a 2xx of a path and method answers. */
type Ok<P extends keyof paths, M extends keyof paths[P]> = Answer<paths[P][M]>;
/** The JSON body a path and method take. */
type BodyOf<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { requestBody?: infer R } ? NonNullable<R> extends { content: { 'application/json': infer B } } ? B : never : never;

/** A pair an admin set: 1 `base` = `rate` `quote` (GET /api/fx-rates; the inverse is derived by the server). */
export type FxRate = Ok<'/api/fx-rates', 'get'>[number];
/** A quote for an exchange: the rate held until `expires_at` (30 s). */
export type FxQuote = Ok<'/api/user/fx-quotes', 'post'>;
export type FxQuotePayload = BodyOf<'/api/user/fx-quotes', 'post'>;
export type ExchangeResponse = Ok<'/api/user/fx-transfers', 'post'>;
/** The caller's preferences: the currency the dashboard's approximate total is in. */
export type Preferences = Ok<'/api/user/preferences', 'get'>;
export type HomeCurrency = Preferences['home_currency'];
/** Four eyes: an action at or over the threshold, waiting for a second administrator. */
export type Approval = Ok<'/api/admin/approvals', 'get'>[number];
export type ApprovalStatus = Approval['status'];
/** A 202: the action did not run; it waits for a second administrator's approval. */
export type ApprovalPending = Extract<Ok<'/api/admin/accounts/{account_number}/deposit', 'post'>, { approval: unknown }>;
/** An account's interest: the type's rate (percent a year), what accrued and is not paid yet, the last payment. */
export type AccountInterest = Ok<'/api/user/accounts/{id}/interest', 'get'>;
/** An account type as an admin edits it (its interest rate). */
export type AdminAccountType = Ok<'/api/admin/account-types', 'get'>[number];
