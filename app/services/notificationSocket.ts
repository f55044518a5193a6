import type { PushedNotification } from './api/types';
import { SESSION_ENDED_CLOSE_CODE } from './socketProtocols';

/** Spec §9: 5 retries, 3000 ms apart; the counter resets on a successful open. */
export const SOCKET_MAX_RETRIES = 5;
export const SOCKET_RETRY_DELAY_MS = 3000;

interface SocketLike {
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  close(): void;
}

export interface NotificationSocketOptions {
  url: string;
  /** Offered subprotocols (the token: socketProtocols). */
  protocols?: string[];
  onNotification: (n: PushedNotification) => void;
  /** `{"type":"resync"}`: the server may have missed events (e.g. after a database restart); refetch. */
  onResync?: () => void;
  onStatus?: (status: 'open' | 'closed' | 'retrying' | 'gave-up') => void;
  /**
   * The server closed the socket with 4401: the session was revoked, expired
   * or its user deactivated. No retry follows; the app signs out.
   */
  onSessionEnded?: () => void;
  createSocket?: (url: string, protocols?: string[]) => SocketLike;
  maxRetries?: number;
  retryDelayMs?: number;
}

export interface NotificationSocket {
  close(): void;
  /**
   * The app went to the background: close the connection and stop retrying
   * (a phone would kill it anyway, and retries would burn out while asleep).
   */
  pause(): void;
  /**
   * Back in the foreground or back online: connect again now, with the five
   * retries restored, unless a connection is open or on its way.
   */
  resume(): void;
  /** For tests and diagnostics. */
  readonly retries: number;
}

export type SocketMessage = { type: 'push'; push: PushedNotification } | { type: 'resync' };

/** Parses one message: a push (has a message string) or `{"type":"resync"}`; anything else is ignored. */
export function parseSocketMessage(data: unknown): SocketMessage | null {
  if (typeof data !== 'string') return null;
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object') return null;
  const v = value as { type?: unknown; message?: unknown };
  if (v.type === 'resync') return { type: 'resync' };
  return typeof v.message === 'string' ? { type: 'push', push: value as PushedNotification } : null;
}

/** Opens the live-notification WebSocket and keeps it open (with bounded retries) until close(). */
export function openNotificationSocket(options: NotificationSocketOptions): NotificationSocket {
  const {
    url,
    protocols,
    onNotification,
    onResync,
    onStatus,
    onSessionEnded,
    createSocket = (u: string, p?: string[]) => new WebSocket(u, p) as unknown as SocketLike,
    maxRetries = SOCKET_MAX_RETRIES,
    retryDelayMs = SOCKET_RETRY_DELAY_MS,
  } = options;

  let socket: SocketLike | null = null;
  let retries = 0;
  let closedByUs = false;
  let paused = false;
  let timer: ReturnType<typeof setTimeout> | null = null;

  const connect = () => {
    timer = null;
    if (closedByUs || paused) return;
    let s: SocketLike;
    try {
      s = createSocket(url, protocols);
    } catch {
      scheduleRetry();
      return;
    }
    socket = s;
    s.onopen = () => {
      retries = 0;
      onStatus?.('open');
    };
    s.onmessage = (ev) => {
      const message = parseSocketMessage(ev.data);
      if (message?.type === 'push') onNotification(message.push);
      else if (message?.type === 'resync') onResync?.();
    };
    s.onerror = () => {
      // onclose follows; retries are handled there.
    };
    s.onclose = (ev) => {
      if (socket === s) socket = null;
      if (closedByUs || paused) return;
      if ((ev as { code?: number } | null)?.code === SESSION_ENDED_CLOSE_CODE) {
        closedByUs = true;
        onStatus?.('closed');
        onSessionEnded?.();
        return;
      }
      onStatus?.('closed');
      scheduleRetry();
    };
  };

  const scheduleRetry = () => {
    if (closedByUs || paused || timer) return;
    if (retries >= maxRetries) {
      onStatus?.('gave-up');
      return;
    }
    retries += 1;
    onStatus?.('retrying');
    timer = setTimeout(connect, retryDelayMs);
  };

  const drop = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const s = socket;
    socket = null;
    if (s) {
      s.onclose = null;
      s.onmessage = null;
      s.onopen = null;
      try {
        s.close();
      } catch {
        // already closed
      }
    }
  };

  connect();

  return {
    close() {
      closedByUs = true;
      drop();
    },
    pause() {
      if (closedByUs || paused) return;
      paused = true;
      drop();
      onStatus?.('closed');
    },
    resume() {
      if (closedByUs) return;
      paused = false;
      retries = 0;
      if (socket) return;
      if (timer) clearTimeout(timer);
      timer = null;
      connect();
    },
    get retries() {
      return retries;
    },
  };
}
