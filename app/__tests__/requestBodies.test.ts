import { requestBodies, unknownBodyField } from './requestBodies';
import { mockFetch, jsonResponse } from './testUtils';

describe('request bodies, as server/openapi.json defines them', () => {
  it('knows every operation that takes a body', () => {
    expect(requestBodies.length).toBeGreaterThanOrEqual(20);
  });

  it('names a field the operation does not define, and accepts the ones it does', () => {
    expect(unknownBodyField('POST', '/api/admin/accounts/100200300/deposit', { amount: 1, currency: 'EUR' })).toBe('currency');
    expect(unknownBodyField('POST', '/api/admin/accounts/100200300/deposit', { amount: 1, description: 'Cash' })).toBeUndefined();
    expect(unknownBodyField('POST', '/api/user/money-transfer', { account_id: 'A', to_account_id: 'B', amount: 1, user_id: 7 })).toBeUndefined();
    expect(unknownBodyField('POST', '/api/auth/register', { full_name: 'M', email: 'm@x', phone_number: '1', password: 'p', role: 'Admin' })).toBe('role');
  });

  it('makes the tests fetch stand-in refuse such a body, as the server does', async () => {
    const { calls } = mockFetch({ 'POST /api/user/payees': () => jsonResponse(201, { id: 1 }) });
    const refused = await fetch('http://localhost/api/user/payees', { method: 'POST', body: JSON.stringify({ nickname: 'Bob', account_number: '200300400', colour: 'red' }) });
    expect(refused.status).toBe(400);
    const ok = await fetch('http://localhost/api/user/payees', { method: 'POST', body: JSON.stringify({ nickname: 'Bob', account_number: '200300400' }) });
    expect(ok.status).toBe(201);
    expect(calls).toHaveLength(2);
  });
});
