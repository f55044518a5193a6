import { getPathFromState, getStateFromPath } from '@react-navigation/native';

import { linking } from '../navigators/linking';
import { hrefFor, type AppRouteName } from '../navigators/routes';

const config = linking.config!;

/** The focused route at the deepest level, with its params. */
function resolve(path: string): { names: string[]; params?: object } {
  let state = getStateFromPath(path, config) as { routes: Array<{ name: string; params?: object; state?: unknown }>; index?: number } | undefined;
  const names: string[] = [];
  let params: object | undefined;
  while (state) {
    const route = state.routes[state.index ?? state.routes.length - 1];
    names.push(route.name);
    params = route.params;
    state = route.state as typeof state;
  }
  return { names, params };
}

describe('the URL table', () => {
  const table: Array<[string, AppRouteName]> = [
    ['/', 'Dashboard'],
    ['/account-registration', 'AccountRegistration'],
    ['/transfer-funds', 'TransferFunds'],
    ['/money-request', 'MoneyRequest'],
    ['/transaction-history', 'TransactionHistory'],
    ['/notifications', 'Notifications'],
    ['/users', 'Users'],
    ['/Assign', 'Assign'],
    ['/logs', 'Logs'],
    ['/settings', 'Settings'],
    ['/security', 'Security'],
  ];

  it.each(table)('%s opens %s inside the shell', (path, name) => {
    expect(resolve(path).names).toEqual(['App', name]);
    expect(hrefFor(name)).toBe(path);
  });

  it('/auth is the sign-in screen', () => {
    expect(resolve('/auth').names).toEqual(['Auth']);
  });

  it('keeps ?account_id= on the transaction history', () => {
    expect(resolve('/transaction-history?account_id=100200300')).toEqual({
      names: ['App', 'TransactionHistory'],
      params: { account_id: '100200300' },
    });
    expect(hrefFor('TransactionHistory', { account_id: '100200300' })).toBe('/transaction-history?account_id=100200300');
    const state = getStateFromPath('/transaction-history?account_id=42', config)!;
    expect(getPathFromState(state, config)).toBe('/transaction-history?account_id=42');
  });

  it('anything else is the not-found screen (paths are case-sensitive: /Assign, not /assign)', () => {
    expect(resolve('/no-such-page').names).toEqual(['NotFound']);
    expect(resolve('/users/extra').names).toEqual(['NotFound']);
    expect(resolve('/assign').names).toEqual(['NotFound']);
  });
});
