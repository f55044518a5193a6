import { ApiError, buildQuery, COMMIT_POSITION_HEADER, createApiClient, errorMessage, api, laterPosition } from '../services/api/client';
import { sessionStore } from '../state/session';

type FetchArgs = [string, RequestInit];

function jsonResponse(status: number, body?: unknown, raw?: string): Response {
  const text = raw ?? (body === undefined ? '' : JSON.stringify(body));
  return {
    ok: status >= 200 && status < 300,
    status,
    text: async () => text,
  } as unknown as Response;
}

function setup(token: string | null, response: Response) {
  const fetchImpl = jest.fn(async (..._args: FetchArgs) => response);
  const onUnauthorized = jest.fn();
  const client = createApiClient({
    baseUrl: () => '/api',
    getToken: () => token,
    onUnauthorized,
    fetchImpl: fetchImpl as unknown as typeof fetch,
  });
  return { client, fetchImpl, onUnauthorized };
}

describe('commit positions (read your writes)', () => {
  const withPosition = (status: number, position: string | null) =>
    ({
      ...jsonResponse(status, { ok: true }),
      headers: { get: (name: string) => (name === COMMIT_POSITION_HEADER ? position : null) },
    }) as unknown as Response;

  it('sends the latest position a write answered with every later request', async () => {
    const answers = [withPosition(201, '16/B374D848'), withPosition(200, null), withPosition(201, '16/B374D000'), withPosition(200, null)];
    const fetchImpl = jest.fn(async (..._args: FetchArgs) => answers.shift()!);
    const client = createApiClient({ baseUrl: () => '/api', getToken: () => 't', onUnauthorized: jest.fn(), fetchImpl: fetchImpl as unknown as typeof fetch });
    const sent = (i: number) => (fetchImpl.mock.calls[i][1].headers as Record<string, string>)[COMMIT_POSITION_HEADER];

    await client.post('/user/money-transfer', {});
    expect(sent(0)).toBeUndefined();
    await client.get('/user/transactions/history');
    expect(sent(1)).toBe('16/B374D848');
    // An older position (another instance answered late) does not take its place.
    await client.post('/user/money-transfer', {});
    await client.get('/user/transactions/history');
    expect(sent(3)).toBe('16/B374D848');
    expect(client.requestHeaders()[COMMIT_POSITION_HEADER]).toBe('16/B374D848');
  });

  it('forgets a position the server has not reached and sends the request once more without it', async () => {
    const ahead = {
      ...jsonResponse(400, { error: 'X-Meridian-Commit-LSN is ahead of the database', code: 'commit_position_ahead' }),
      headers: { get: () => null },
    } as unknown as Response;
    const answers = [withPosition(201, 'FFFFFFFF/0'), ahead, withPosition(200, null), withPosition(200, null)];
    const fetchImpl = jest.fn(async (..._args: FetchArgs) => answers.shift()!);
    const client = createApiClient({ baseUrl: () => '/api', getToken: () => 't', onUnauthorized: jest.fn(), fetchImpl: fetchImpl as unknown as typeof fetch });
    const sent = (i: number) => (fetchImpl.mock.calls[i][1].headers as Record<string, string>)[COMMIT_POSITION_HEADER];

    await client.post('/user/money-transfer', {});
    await expect(client.get('/user/accounts')).resolves.toEqual({ ok: true });
    expect(fetchImpl).toHaveBeenCalledTimes(3);
    expect(sent(1)).toBe('FFFFFFFF/0');
    expect(sent(2)).toBeUndefined();
    await client.get('/user/accounts');
    expect(sent(3)).toBeUndefined();
  });

  it('sends a request again only once', async () => {
    const ahead = () =>
      ({
        ...jsonResponse(400, { error: 'ahead', code: 'commit_position_ahead' }),
        headers: { get: () => null },
      }) as unknown as Response;
    const answers = [withPosition(201, 'FFFFFFFF/0'), ahead(), ahead()];
    const fetchImpl = jest.fn(async (..._args: FetchArgs) => answers.shift()!);
    const client = createApiClient({ baseUrl: () => '/api', getToken: () => 't', onUnauthorized: jest.fn(), fetchImpl: fetchImpl as unknown as typeof fetch });

    await client.post('/user/money-transfer', {});
    await expect(client.get('/user/accounts')).rejects.toMatchObject({ status: 400 });
    expect(fetchImpl).toHaveBeenCalledTimes(3);
  });

  it('compares the two hexadecimal halves and ignores a malformed position', () => {
    expect(laterPosition(null, '0/16B3748')).toBe('0/16B3748');
    expect(laterPosition('0/FFFFFFFF', '1/0')).toBe('1/0');
    expect(laterPosition('1/0', '0/FFFFFFFF')).toBe('1/0');
    expect(laterPosition('16/B374D848', '16/B374D849')).toBe('16/B374D849');
    expect(laterPosition('16/B374D848', 'garbage')).toBe('16/B374D848');
    expect(laterPosition(null, '16/')).toBeNull();
  });
});

describe('API client', () => {
  it('sends the Bearer token and JSON body', async () => {
    const { client, fetchImpl } = setup('tok-123', jsonResponse(200, { ok: true }));
    const result = await client.post<{ ok: boolean }>('/user/accounts', { account_number: '123456' });
    expect(result).toEqual({ ok: true });
    const [url, init] = fetchImpl.mock.calls[0];
    expect(url).toBe('/api/user/accounts');
    expect(init.method).toBe('POST');
    const headers = init.headers as Record<string, string>;
    expect(headers.Authorization).toBe('Bearer tok-123');
    expect(headers['Content-Type']).toBe('application/json');
    expect(init.body).toBe(JSON.stringify({ account_number: '123456' }));
  });

  it('sends no Authorization header without a token', async () => {
    const { client, fetchImpl } = setup(null, jsonResponse(200, []));
    await client.get('/user/account-types');
    const headers = fetchImpl.mock.calls[0][1].headers as Record<string, string>;
    expect(headers.Authorization).toBeUndefined();
    expect(headers['Content-Type']).toBeUndefined();
  });

  it('encodes query parameters and skips empty ones', async () => {
    const { client, fetchImpl } = setup('t', jsonResponse(200, { data: [] }));
    await client.get('/user/transactions/history', { account_id: '100 200', transaction_type: undefined, limit: 10 });
    expect(fetchImpl.mock.calls[0][0]).toBe('/api/user/transactions/history?account_id=100%20200&limit=10');
    expect(buildQuery({})).toBe('');
  });

  it('surfaces the server error field as the message', async () => {
    const { client } = setup('t', jsonResponse(409, { error: 'An account with this email already exists', code: 'email_taken' }));
    const err = await client.post('/auth/register', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    const apiErr = err as ApiError;
    expect(apiErr.status).toBe(409);
    expect(apiErr.message).toBe('An account with this email already exists');
    expect(apiErr.serverMessage).toBe('An account with this email already exists');
    expect(apiErr.code).toBe('email_taken');
    expect(errorMessage(apiErr, 'Registration failed')).toBe('An account with this email already exists');
  });

  it('falls back to the message field, then to the caller text', async () => {
    const withMessage = setup('t', jsonResponse(500, { message: 'Database unavailable' }));
    const e1 = await withMessage.client.get('/x').catch((e: unknown) => e);
    expect(errorMessage(e1, 'Failed')).toBe('Database unavailable');

    const bare = setup('t', jsonResponse(502, undefined, '<html>Bad gateway</html>'));
    const e2 = await bare.client.get('/x').catch((e: unknown) => e);
    expect((e2 as ApiError).status).toBe(502);
    expect((e2 as ApiError).serverMessage).toBeUndefined();
    expect(errorMessage(e2, 'Transfer failed')).toBe('Transfer failed');
    expect(errorMessage(new Error('boom'), 'Transfer failed')).toBe('Transfer failed');
  });

  it('calls onUnauthorized on a 401, and only then', async () => {
    const unauthorized = setup('expired', jsonResponse(401, { error: 'Invalid or expired token', code: 'unauthorized' }));
    await expect(unauthorized.client.get('/auth/me')).rejects.toMatchObject({ status: 401 });
    expect(unauthorized.onUnauthorized).toHaveBeenCalledTimes(1);

    const forbidden = setup('t', jsonResponse(403, { error: 'Forbidden' }));
    await expect(forbidden.client.get('/admin/users')).rejects.toMatchObject({ status: 403 });
    expect(forbidden.onUnauthorized).not.toHaveBeenCalled();
  });

  it('returns undefined for 204 No Content', async () => {
    const { client } = setup('t', jsonResponse(204));
    await expect(client.put('/user/notifications/5/read')).resolves.toBeUndefined();
  });

  it('turns a network failure into an ApiError with status 0', async () => {
    const client = createApiClient({
      baseUrl: () => '/api',
      getToken: () => null,
      onUnauthorized: jest.fn(),
      fetchImpl: (async () => {
        throw new TypeError('Failed to fetch');
      }) as unknown as typeof fetch,
    });
    await expect(client.get('/x')).rejects.toMatchObject({ status: 0 });
  });
});

describe('the app client', () => {
  const realFetch = global.fetch;
  afterEach(() => {
    global.fetch = realFetch;
  });

  it('any 401 removes the stored token and user', async () => {
    await sessionStore.signIn('stale-token', {
      id: 1,
      full_name: 'A',
      email: 'a@x.test',
      phone_number: '1',
      role: 'User',
      is_active: true,
      created_at: '2026-01-01T00:00:00Z',
    });
    const fetchMock = jest.fn(async () => jsonResponse(401, { error: 'Invalid or expired token' }));
    global.fetch = fetchMock as unknown as typeof fetch;
    await expect(api.get('/user/accounts')).rejects.toMatchObject({ status: 401 });
    const [url, init] = fetchMock.mock.calls[0] as unknown as FetchArgs;
    // Android/iOS under Jest: EXPO_PUBLIC_API_URL or the default origin, then /api.
    expect(url).toMatch(/\/api\/user\/accounts$/);
    expect((init.headers as Record<string, string>).Authorization).toBe('Bearer stale-token');
    expect(sessionStore.getState().token).toBeNull();
    expect(sessionStore.getState().user).toBeNull();
  });
});
