import type { NavigatorScreenParams } from '@react-navigation/native';

/** Screens inside the signed-in shell. */
export type AppParamList = {
  Dashboard: undefined;
  AccountRegistration: undefined;
  TransferFunds: undefined;
  MoneyRequest: undefined;
  TransactionHistory: { account_id?: string } | undefined;
  Notifications: undefined;
  Users: undefined;
  Assign: undefined;
  Logs: undefined;
  Settings: undefined;
};

export type AppRouteName = keyof AppParamList;

export type RootParamList = {
  Auth: undefined;
  App: NavigatorScreenParams<AppParamList> | undefined;
  NotFound: undefined;
};

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace ReactNavigation {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface RootParamList extends RootParamListType {}
  }
}
type RootParamListType = RootParamList;

/**
 * The one URL table (web paths; Android/iOS deep links use the same paths).
 * Paths are exactly the spec's; '/Assign' keeps its capital A.
 */
export const APP_PATHS: Record<AppRouteName, string> = {
  Dashboard: '',
  AccountRegistration: 'account-registration',
  TransferFunds: 'transfer-funds',
  MoneyRequest: 'money-request',
  TransactionHistory: 'transaction-history',
  Notifications: 'notifications',
  Users: 'users',
  Assign: 'Assign',
  Logs: 'logs',
  Settings: 'settings',
};

export const AUTH_PATH = 'auth';

/** Pages only an Admin may open; others get 'Unauthorized access' and go to /. */
export const ADMIN_ONLY: ReadonlySet<AppRouteName> = new Set<AppRouteName>(['Users', 'Assign']);

/** Titles, for the document title and placeholders. */
export const ROUTE_TITLES: Record<AppRouteName, string> = {
  Dashboard: 'Dashboard',
  AccountRegistration: 'Account Registration',
  TransferFunds: 'Transfer Funds',
  MoneyRequest: 'Money Requests',
  TransactionHistory: 'Transaction History',
  Notifications: 'Notifications',
  Users: 'User Management',
  Assign: 'Role Assignment',
  Logs: 'System Logs',
  Settings: 'Settings',
};

/** '/transaction-history?account_id=123' for a route and its params. */
export function hrefFor<K extends AppRouteName>(name: K, params?: AppParamList[K]): string {
  const base = `/${APP_PATHS[name]}`;
  if (!params) return base;
  const query = Object.entries(params as Record<string, unknown>)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  return query ? `${base}?${query}` : base;
}
