/** Shapes of the Meridian API, as /work/shared/contract.md settles them. */

export type Role = 'User' | 'Admin';

export interface User {
  id: number;
  full_name: string;
  email: string;
  phone_number: string;
  role: Role;
  is_active: boolean;
  created_at: string;
}

export interface ApiErrorBody {
  error?: string;
  message?: string;
  code?: string;
  fields?: Record<string, string>;
}

export interface LoginPayload {
  email: string;
  password: string;
}

export interface LoginResponse {
  token: string;
  expires_at: string;
  user: User;
}

export interface RegisterPayload {
  full_name: string;
  email: string;
  phone_number: string;
  password: string;
}

export interface RegisterResponse {
  message: string;
  user: User;
}

export interface PasswordResetPayload {
  old_password: string;
  new_password: string;
}

export interface MessageResponse {
  message: string;
}

/** Money as the API sends it: a number with at most two decimals. Inputs may be strings. */
export type Amount = number;
export type AmountInput = number | string;

export interface Account {
  id: number;
  /** The holder's full name. */
  name: string;
  account_number: string;
  account_type_id: number;
  type_name: string;
  balance: Amount;
  currency: string;
  created_at: string;
  user_id: number;
}

export interface AccountType {
  id: number;
  /** Repeats `id` for the first app's clients, which read `ID`. */
  ID: number;
  type_name: string;
  currency: string;
}

export interface AccountPayload {
  account_number: string;
  balance: AmountInput;
  account_type_id: number;
  user_id?: number;
}

export interface AccountLookup {
  full_name: string;
  account_number: string;
}

export type TransactionType = 'DEBIT' | 'CREDIT';

export interface Transaction {
  id: number;
  transaction_date: string;
  transaction_type: TransactionType;
  amount: Amount;
  /** Sender's account number. */
  account_id: string;
  /** Recipient's account number. */
  to_account_id: string;
  description: string;
}

export interface TransferPayload {
  /** From account number. */
  account_id: string;
  /** Recipient account number. */
  to_account_id: string;
  amount: AmountInput;
  description?: string;
  user_id?: number;
}

export interface TransferResponse {
  message: string;
  transaction: Transaction;
}

export interface HistoryQuery {
  account_id?: string;
  transaction_type?: TransactionType;
  limit?: number;
  before?: string;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export type MoneyRequestStatus = 'PENDING' | 'ACCEPTED' | 'REJECTED' | 'EXPIRED';

export interface MoneyRequest {
  ID: number;
  Amount: Amount;
  /** The requester's own account number (shown as 'From Account'). */
  requester_id: string;
  /** The account asked to pay. */
  recipient_id: string;
  Status: MoneyRequestStatus;
  RequesteAt: string;
  ExpiresAt?: string;
  description: string;
  direction?: 'incoming' | 'outgoing';
}

export interface MoneyRequestPayload {
  requester_id: string;
  recipient_id: string;
  amount: AmountInput;
  description?: string;
  user_id?: number;
}

export interface DataResponse<T> {
  message?: string;
  data: T;
}

/** A dashboard's money figures in one currency. */
export interface CurrencyTotals {
  currency: string;
  total_balance: Amount;
  total_sent_amount: Amount;
  total_received_amount: Amount;
}

/** Amounts in the base currency (USD) only; counts over every currency; `by_currency` per currency, base first. */
export interface DashboardSummary {
  total_transactions: number;
  pending_requests: number;
  total_transfers: number;
  total_sent_amount: Amount;
  total_received_amount: Amount;
  by_currency: CurrencyTotals[];
}

export interface AdminDashboardSummary extends DashboardSummary {
  total_balance: Amount;
  total_users: number;
}

export interface MonthlyPoint {
  name: string;
  total: number;
}

export interface AdminUserRow {
  id: number;
  name: string;
  email: string;
  phone: string;
  role: Role;
  /** The active flag. */
  status: boolean;
  created: string;
}

export interface AuditLog {
  id: number;
  FullName: string;
  AccountNumber: string;
  ActionType: string;
  TableName: string;
  Description: string;
  ActionTimestamp: string;
}

export interface AuditLogPage {
  audit_logs: AuditLog[];
  next_cursor: string | null;
}

/** GET /api/admin/audit-logs/verify: whether the audit log's hash chain is intact. */
export interface AuditChainVerification {
  ok: boolean;
  /** The last entry checked, or null when the log is empty. */
  verified_through: number | null;
  /** The first entry that was changed or removed, or null when the chain verifies. */
  first_bad_id: number | null;
}

export type NotificationFilter = 'all' | 'requests' | 'alerts';

/** A stored notification as GET /api/user/notifications returns it. */
export interface ServerNotification {
  id: number;
  message: string;
  is_new: boolean;
  created_at: string;
}

/** A live push on /ws. */
export interface PushedNotification {
  id?: number;
  message: string;
  user_id?: number;
  created_at?: string;
}
