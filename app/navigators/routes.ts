import type { NavigatorScreenParams } from '@react-navigation/native';

import type { Role } from '../services/api/types';
import { t } from '../i18n';

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
  Security: undefined;
  Exchange: undefined;
  Rates: undefined;
  Approvals: undefined;
  /** An app's authorization request, as /oauth/authorize sends it (contract §9). */
  Consent: ConsentParams | undefined;
};

/** The query of /consent: the authorization request's parameters. */
export interface ConsentParams {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
  nonce?: string;
  code_challenge?: string;
  code_challenge_method?: string;
}

export type AppRouteName = keyof AppParamList;

/** A page inside the shell, with its params (e.g. the one to return to after signing in). */
export interface RememberedRoute {
  name: AppRouteName;
  params?: AppParamList[AppRouteName];
}

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
  Security: 'security',
  Exchange: 'exchange',
  Rates: 'rates',
  Approvals: 'approvals',
  Consent: 'consent',
};

export const AUTH_PATH = 'auth';

/** Pages only an Admin may open; others get 'Unauthorized access' and go to /. */
export const ADMIN_ONLY: ReadonlySet<AppRouteName> = new Set<AppRouteName>(['Users', 'Assign', 'Rates', 'Approvals']);

/** Customer pages (the sidebar's Customers group): an Admin gets 'Unauthorized access' and goes to /. */
export const CUSTOMER_ONLY: ReadonlySet<AppRouteName> = new Set<AppRouteName>(['AccountRegistration', 'TransferFunds', 'MoneyRequest', 'Exchange', 'Consent']);

/** Whether a role may open a page (the shell's guard; the sidebar shows the same links). */
export function roleMayOpen(route: AppRouteName, role: Role): boolean {
  if (ADMIN_ONLY.has(route)) return role === 'Admin';
  if (CUSTOMER_ONLY.has(route)) return role !== 'Admin';
  return true;
}

/** Titles (i18n keys: routeTitle() answers them in the user's language), for the document title and placeholders. */
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
  Security: 'Security',
  Exchange: 'Currency Exchange',
  Rates: 'Rates',
  Approvals: 'Approvals',
  Consent: 'Connect an app',
};

/** A page's title in the user's language. */
export function routeTitle(name: AppRouteName): string {
  return t(ROUTE_TITLES[name]);
}

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
