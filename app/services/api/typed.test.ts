/**
 * The typed client: a wrong path, a missing path parameter or a wrong body
 * does not compile (each `@ts-expect-error` below fails `npm run typecheck`
 * if the line compiles), and the calls reach the paths they name.
 */
import { jsonResponse, mockFetch } from '../../__tests__/testUtils';
import { client, fillPath } from './typed';

const realFetch = global.fetch;
afterEach(() => {
  global.fetch = realFetch;
});

// Compile-time checks, never run.
export function typeChecks(): void {
  // @ts-expect-error: no such path
  void client.GET('/api/user/acounts');
  // @ts-expect-error: the path takes {id}
  void client.DELETE('/api/user/payees/{id}');
  // @ts-expect-error: a payee has no "amount"
  void client.POST('/api/user/payees', { body: { nickname: 'x', amount: 1 } });
  // @ts-expect-error: POST /api/user/payees needs a body
  void client.POST('/api/user/payees');
  // @ts-expect-error: GET is not a method of that path
  void client.GET('/api/user/money-transfer');
  // The answer is typed: accounts have numbers.
  void client.GET('/api/user/accounts').then((accounts) => accounts.map((a) => a.account_number.trim()));
}

describe('the typed client', () => {
  it('fills path parameters and strips the /api its base adds', () => {
    expect(fillPath('/api/user/payees/{id}', { id: 7 })).toBe('/user/payees/7');
    expect(fillPath('/api/admin/accounts/{account_number}/deposit', { account_number: 'A B' })).toBe('/admin/accounts/A%20B/deposit');
    expect(() => fillPath('/api/user/payees/{id}', {})).toThrow(/missing path parameter id/);
  });

  it('sends the method, query and body to the named path', async () => {
    const { calls } = mockFetch({
      'GET /api/user/account-details': () => jsonResponse(200, { full_name: 'Bob', account_number: '200300400' }),
      'DELETE /api/user/payees/9': () => jsonResponse(204),
      'POST /api/user/payees': () => jsonResponse(201, { id: 1 }),
    });
    expect(await client.GET('/api/user/account-details', { params: { query: { account_number: '200300400' } } })).toEqual({ full_name: 'Bob', account_number: '200300400' });
    expect(calls[0].url).toMatch(/\/api\/user\/account-details\?account_number=200300400$/);
    await client.DELETE('/api/user/payees/{id}', { params: { path: { id: 9 } } });
    await client.POST('/api/user/payees', { body: { nickname: 'Bob', account_number: '200300400' } });
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /api/user/account-details', 'DELETE /api/user/payees/9', 'POST /api/user/payees']);
    expect(calls[2].body).toEqual({ nickname: 'Bob', account_number: '200300400' });
  });
});
