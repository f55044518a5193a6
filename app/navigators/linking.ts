import type { LinkingOptions } from '@react-navigation/native';
import * as Linking from 'expo-linking';

import { APP_PATHS, AUTH_PATH, type RootParamList } from './routes';

/**
 * The single linking table: the web's URLs are exactly the spec's
 * (/auth, /, /account-registration, /transfer-funds, /money-request,
 * /transaction-history?account_id=, /notifications, /users, /Assign, /logs,
 * /settings, and beyond the spec /security, /exchange, /rates and /approvals);
 * anything else is the not-found screen.
 */
export const linking: LinkingOptions<RootParamList> = {
  prefixes: appPrefixes(),
  config: {
    screens: {
      Auth: AUTH_PATH,
      App: {
        path: '',
        screens: APP_PATHS,
      },
      NotFound: '*',
    },
  },
};

/** Deep-link prefixes: the app's scheme (meridian://) and, in development, Expo's own URL. */
function appPrefixes(): string[] {
  try {
    return [...new Set([Linking.createURL('/'), 'meridian://'])];
  } catch {
    // No manifest (e.g. unit tests): the scheme alone.
    return ['meridian://'];
  }
}
