import { isDocumented, requestBodies, unknownBodyField } from './requestBodies';
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

  it("covers a bank's books (issue 21): exchange, preferences, reversals, approvals, rates", () => {
    const refused: Array<[string, string, Record<string, unknown>, string]> = [
      ['POST', '/api/user/fx-quotes', { from_account_id: 'A', to_account_id: 'B', amount: 1, rate: 2 }, 'rate'],
      ['POST', '/api/user/fx-transfers', { quote_id: 1, description: '', amount: 5 }, 'amount'],
      ['PUT', '/api/user/preferences', { home_currency: 'EUR', language: 'es' }, 'language'],
      ['POST', '/api/admin/transactions/7/reverse', { reason: 'Wrong account', amount: 1 }, 'amount'],
      ['POST', '/api/admin/approvals/3/reject', { reason: 'No', by: 2 }, 'by'],
      ['PUT', '/api/admin/fx-rates/EUR/USD', { rate: 1.08, inverse: 0.92 }, 'inverse'],
      ['PUT', '/api/admin/account-types/2', { interest_rate: 2, currency: 'EUR' }, 'currency'],
    ];
    for (const [method, path, body, field] of refused) {
      expect(unknownBodyField(method, path, body)).toBe(field);
      const { [field]: _, ...good } = body;
      expect(unknownBodyField(method, path, good)).toBeUndefined();
    }
  });

  it('makes the tests fetch stand-in refuse such a body, as the server does', async () => {
    const { calls } = mockFetch({ 'POST /api/user/payees': () => jsonResponse(201, { id: 1 }) });
    const refused = await fetch('http://localhost/api/user/payees', { method: 'POST', body: JSON.stringify({ nickname: 'Bob', account_number: '200300400', colour: 'red' }) });
    expect(refused.status).toBe(400);
    const ok = await fetch('http://localhost/api/user/payees', { method: 'POST', body: JSON.stringify({ nickname: 'Bob', account_number: '200300400' }) });
    expect(ok.status).toBe(201);
    expect(calls).toHaveLength(2);
  });

  it('answers 404 for an API call the document does not have', async () => {
    expect(isDocumented('POST', '/api/admin/approvals/3/approve')).toBe(true);
    expect(isDocumented('DELETE', '/api/admin/approvals/3')).toBe(false);
    const { calls } = mockFetch({ 'DELETE /api/admin/approvals/3': () => jsonResponse(204) });
    const res = await fetch('http://localhost/api/admin/approvals/3', { method: 'DELETE' });
    expect(res.status).toBe(404);
    expect(calls).toHaveLength(1);
  });
});
