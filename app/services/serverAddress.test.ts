import { memoryStorage } from '../__tests__/memoryStorage';
import { jsonResponse } from '../__tests__/testUtils';
import { buildDefaultServer, checkServer, createServerAddressStore, FALLBACK_SERVER, normaliseServerAddress } from './serverAddress';

describe('server address', () => {
  it('normalises what a person types', () => {
    expect(normaliseServerAddress('192.168.1.20:8080')).toBe('http://192.168.1.20:8080');
    expect(normaliseServerAddress(' http://10.0.2.2:8080/ ')).toBe('http://10.0.2.2:8080');
    expect(normaliseServerAddress('https://bank.example.com')).toBe('https://bank.example.com');
    expect(normaliseServerAddress('https://example.com/meridian/')).toBe('https://example.com/meridian');
    for (const bad of ['', '   ', 'ftp://host', 'http://', 'http://host:8080/?x=1', 'http://u:p@host']) expect(normaliseServerAddress(bad)).toBeNull();
  });

  it('outside development builds takes https only (no cleartext traffic either: app.config.ts)', () => {
    expect(normaliseServerAddress('bank.example.com', false)).toBe('https://bank.example.com');
    expect(normaliseServerAddress('https://bank.example.com:8443/', false)).toBe('https://bank.example.com:8443');
    for (const plain of ['http://192.168.1.20:8080', 'HTTP://bank.example.com', 'ws://bank.example.com']) expect(normaliseServerAddress(plain, false)).toBeNull();
    // Development builds (jest runs as one) keep http for a server on the LAN.
    expect(normaliseServerAddress('http://192.168.1.20:8080', true)).toBe('http://192.168.1.20:8080');
    const saved = process.env.EXPO_PUBLIC_API_URL;
    try {
      process.env.EXPO_PUBLIC_API_URL = 'http://10.0.2.2:8080';
      expect(buildDefaultServer(false)).toBe('https://localhost:8080');
    } finally {
      process.env.EXPO_PUBLIC_API_URL = saved;
    }
  });

  it("defaults to the build's EXPO_PUBLIC_API_URL, else localhost:8080", () => {
    const saved = process.env.EXPO_PUBLIC_API_URL;
    try {
      process.env.EXPO_PUBLIC_API_URL = 'http://10.0.2.2:8080/';
      expect(buildDefaultServer()).toBe('http://10.0.2.2:8080');
      delete process.env.EXPO_PUBLIC_API_URL;
      expect(buildDefaultServer()).toBe(FALLBACK_SERVER);
    } finally {
      process.env.EXPO_PUBLIC_API_URL = saved;
    }
  });

  it('checks GET <server>/readyz', async () => {
    const fetchOk = jest.fn(async () => jsonResponse(200, { status: 'ready' }));
    expect(await checkServer('http://10.0.0.5:8080', fetchOk as unknown as typeof fetch)).toEqual({ ok: true });
    expect(fetchOk).toHaveBeenCalledWith('http://10.0.0.5:8080/readyz', expect.objectContaining({ method: 'GET' }));

    const notReady = jest.fn(async () => jsonResponse(503, { error: 'The database is not reachable', code: 'database_unavailable' }));
    expect(await checkServer('http://h:1', notReady as unknown as typeof fetch)).toEqual({
      ok: false,
      message: 'The server at http://h:1 is not ready: The database is not reachable',
    });

    const other = jest.fn(async () => ({ ok: false, status: 404, text: async () => 'Not Found' }) as unknown as Response);
    expect(await checkServer('http://h:1', other as unknown as typeof fetch)).toEqual({ ok: false, message: 'No Meridian server answers at http://h:1' });

    const down = jest.fn(async () => {
      throw new TypeError('Network request failed');
    });
    expect(await checkServer('http://h:1', down as unknown as typeof fetch)).toEqual({ ok: false, message: 'Cannot reach the server at http://h:1' });
  });

  it('gives up on a server that does not answer within the timeout', async () => {
    const hang = jest.fn(
      (_url: string, init: RequestInit) =>
        new Promise<Response>((_, reject) => init.signal?.addEventListener('abort', () => reject(new Error('aborted')))),
    );
    expect(await checkServer('http://h:1', hang as unknown as typeof fetch, 20)).toEqual({ ok: false, message: 'Cannot reach the server at http://h:1' });
  });

  it('remembers the chosen server', async () => {
    const storage = memoryStorage();
    const store = createServerAddressStore(storage, () => 'http://localhost:8080');
    await store.hydrate();
    expect(store.get()).toBe('http://localhost:8080');
    await store.set('http://192.168.1.20:8080');
    expect(storage.data.get('server')).toBe('http://192.168.1.20:8080');

    const next = createServerAddressStore(storage, () => 'http://localhost:8080');
    expect(next.get()).toBe('http://localhost:8080');
    await next.hydrate();
    expect(next.get()).toBe('http://192.168.1.20:8080');
    expect(next.getState().hydrated).toBe(true);
  });
});
