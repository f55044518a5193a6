import { apiBaseUrl } from '../../config';
import { sessionStore } from '../../state/session';
import { TWO_FACTOR_REQUIRED_CODE, twoFactorGate } from '../../state/twoFactorGate';
import type { ApiErrorBody } from './types';
import { t } from '../../i18n';

/**
 * An error answer of the API. `serverMessage` is the server's `error` field
 * (or `message`), when there was one; screens show it, else their own text:
 * `errorMessage(err, 'Transfer failed')`.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code?: string;
  readonly serverMessage?: string;
  readonly fields?: Record<string, string>;

  constructor(status: number, body: ApiErrorBody | undefined, fallback: string) {
    const serverMessage = pickServerMessage(body);
    super(serverMessage ?? fallback);
    this.name = 'ApiError';
    this.status = status;
    this.code = body?.code;
    this.serverMessage = serverMessage;
    this.fields = body?.fields;
  }

  /** 'Not Found', 'Unauthorized'... for error pages, in the user's language. */
  get statusText(): string {
    const text = STATUS_TEXT[this.status];
    return text ? t(text) : '';
  }
}

const STATUS_TEXT: Record<number, string> = {
  0: 'Network Error',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

function pickServerMessage(body: ApiErrorBody | undefined): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  if (typeof body.error === 'string' && body.error.trim()) return body.error;
  if (typeof body.message === 'string' && body.message.trim()) return body.message;
  return undefined;
}

/**
 * The server's message when the error carries one, else `fallback`. The
 * server writes English sentences; one the catalog knows (they are its keys:
 * "Insufficient funds", "Account not found"...) is shown in the user's
 * language, any other as the server wrote it.
 */
export function errorMessage(error: unknown, fallback: string): string {
  if (error instanceof ApiError && error.serverMessage) return t(error.serverMessage);
  return fallback;
}

export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, QueryValue>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface ApiClientConfig {
  /** e.g. '/api' or 'http://10.0.2.2:8080/api'. */
  baseUrl: () => string;
  getToken: () => string | null;
  /** Called on every 401: the session is dropped, the route guard then shows /auth. */
  onUnauthorized: () => void;
  /** Called on every 403 (with the error and the path asked for). */
  onForbidden?: (error: ApiError, path: string) => void;
  fetchImpl?: typeof fetch;
}

export function buildQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const parts = Object.entries(query)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

export interface ApiClient {
  request<T>(path: string, options?: RequestOptions): Promise<T>;
  get<T>(path: string, query?: Record<string, QueryValue>, signal?: AbortSignal): Promise<T>;
  post<T>(path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
  put<T>(path: string, body?: unknown): Promise<T>;
  del<T = void>(path: string): Promise<T>;
  /**
   * A GET whose body is not JSON (a statement file): the answer itself once it
   * is a 2xx; an error answer throws the same ApiError as `request`.
   */
  raw(path: string, query?: Record<string, QueryValue>, headers?: Record<string, string>): Promise<Response>;
  /** The absolute URL of an API path (for a platform downloader that fetches it itself). */
  url(path: string, query?: Record<string, QueryValue>): string;
  /** The headers every request carries: the session's Authorization, and the commit position of the last write. */
  requestHeaders(): Record<string, string>;
}

export function createApiClient(config: ApiClientConfig): ApiClient {
  const urlFor = (path: string, query?: Record<string, QueryValue>) =>
    `${config.baseUrl()}${path.startsWith('/') ? path : `/${path}`}${buildQuery(query)}`;
  // Read-your-writes across instances and read replicas (contract §7): every
  // write answers its commit position; sending the latest one back makes a
  // replica wait until it has replayed it (or the read go to the primary).
  let lastWrite: string | null = null;
  const requestHeaders = (): Record<string, string> => {
    const token = config.getToken();
    return {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(lastWrite ? { [COMMIT_POSITION_HEADER]: lastWrite } : {}),
    };
  };
  const remember = (response: Response) => {
    const position = response.headers?.get?.(COMMIT_POSITION_HEADER);
    if (position) lastWrite = laterPosition(lastWrite, position);
  };

  /**
   * Sends the request; a non-2xx answer throws its ApiError (a 401 also signs out).
   * A position the server's database has not reached (another server's, or one
   * lost in a failover) is refused before the request does anything: the
   * position is forgotten and the request sent once more without it.
   */
  async function send(path: string, options: RequestOptions, again = false): Promise<Response> {
    const { method = 'GET', body, query, headers = {}, signal } = options;
    const url = urlFor(path, query);
    const finalHeaders: Record<string, string> = { Accept: 'application/json', ...headers };
    if (body !== undefined) finalHeaders['Content-Type'] = 'application/json';
    Object.assign(finalHeaders, requestHeaders());

    const doFetch = config.fetchImpl ?? fetch;
    let response: Response;
    try {
      response = await doFetch(url, {
        method,
        headers: finalHeaders,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (cause) {
      if ((cause as { name?: string })?.name === 'AbortError') throw cause;
      throw new ApiError(0, undefined, t('Network error: the server could not be reached'));
    }

    remember(response);
    if (!response.ok) {
      if (response.status === 401) config.onUnauthorized();
      const parsed = await readBody(response);
      const errorBody = parsed !== null && typeof parsed === 'object' ? (parsed as ApiErrorBody) : undefined;
      if (response.status === 400 && errorBody?.code === COMMIT_POSITION_AHEAD && !again) {
        lastWrite = null;
        return send(path, options, true);
      }
      const error = new ApiError(response.status, errorBody, t('Request failed with status {{status}}', { status: response.status }));
      if (response.status === 403) config.onForbidden?.(error, path);
      throw error;
    }
    return response;
  }

  async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
    return (await readBody(await send(path, options))) as T;
  }

  return {
    request,
    raw: (path, query, headers) => send(path, { query, headers }),
    url: urlFor,
    requestHeaders,
    get: (path, query, signal) => request(path, { query, signal }),
    post: (path, body, headers) => request(path, { method: 'POST', body, headers }),
    put: (path, body) => request(path, { method: 'PUT', body }),
    del: (path) => request(path, { method: 'DELETE' }),
  };
}

/** The header a write answers its commit position in, and a read sends it back in. */
export const COMMIT_POSITION_HEADER = 'X-Meridian-Commit-LSN';

/** The code of a 400 for a position the server's database has not reached. */
const COMMIT_POSITION_AHEAD = 'commit_position_ahead';

/**
 * The later of two PostgreSQL WAL positions ('16/B374D848': two hexadecimal
 * halves); a malformed one never replaces a good one.
 */
export function laterPosition(current: string | null, next: string): string | null {
  const parse = (p: string) => {
    const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(p);
    return m ? [parseInt(m[1], 16), parseInt(m[2], 16)] : null;
  };
  const n = parse(next);
  if (!n) return current;
  const c = current ? parse(current) : null;
  if (!c) return next;
  return n[0] > c[0] || (n[0] === c[0] && n[1] > c[1]) ? next : current;
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204 || response.status === 205) return undefined;
  let text: string;
  try {
    text = await response.text();
  } catch {
    return undefined;
  }
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The app's one API client. */
export const api = createApiClient({
  baseUrl: apiBaseUrl,
  getToken: () => sessionStore.getState().token,
  onUnauthorized: () => {
    void sessionStore.signOut();
  },
  onForbidden: (error, path) => {
    // require_2fa_for_admins: the shell sends the admin to Security. The 2FA
    // calls themselves answer their own 403s (e.g. an admin may not turn it off).
    if (error.code === TWO_FACTOR_REQUIRED_CODE && !path.startsWith('/auth/2fa')) twoFactorGate.raise(error.serverMessage);
  },
});
