import type { PushedNotification } from './api/types';

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
  onNotification: (n: PushedNotification) => void;
  onStatus?: (status: 'open' | 'closed' | 'retrying' | 'gave-up') => void;
  createSocket?: (url: string) => SocketLike;
  maxRetries?: number;
  retryDelayMs?: number;
}

export interface NotificationSocket {
  close(): void;
  /** For tests and diagnostics. */
  readonly retries: number;
}

/** Parses one push; anything without a message string is ignored. */
export function parsePush(data: unknown): PushedNotification | null {
  if (typeof data !== 'string') return null;
  try {
    const value = JSON.parse(data) as PushedNotification;
    return value && typeof value === 'object' && typeof value.message === 'string' ? value : null;
  } catch {
    return null;
  }
}

/** Opens the live-notification WebSocket and keeps it open (with bounded retries) until close(). */
export function openNotificationSocket(options: NotificationSocketOptions): NotificationSocket {
  const {
    url,
    onNotification,
    onStatus,
    createSocket = (u: string) => new WebSocket(u) as unknown as SocketLike,
    maxRetries = SOCKET_MAX_RETRIES,
    retryDelayMs = SOCKET_RETRY_DELAY_MS,
  } = options;

  let socket: SocketLike | null = null;
  let retries = 0;
  let closedByUs = false;
  let timer: ReturnType<typeof setTimeout> | null = null;

  const connect = () => {
    timer = null;
    if (closedByUs) return;
    let s: SocketLike;
    try {
      s = createSocket(url);
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
      const push = parsePush(ev.data);
      if (push) onNotification(push);
    };
    s.onerror = () => {
      // onclose follows; retries are handled there.
    };
    s.onclose = () => {
      if (socket === s) socket = null;
      if (closedByUs) return;
      onStatus?.('closed');
      scheduleRetry();
    };
  };

  const scheduleRetry = () => {
    if (closedByUs || timer) return;
    if (retries >= maxRetries) {
      onStatus?.('gave-up');
      return;
    }
    retries += 1;
    onStatus?.('retrying');
    timer = setTimeout(connect, retryDelayMs);
  };

  connect();

  return {
    close() {
      closedByUs = true;
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
    },
    get retries() {
      return retries;
    },
  };
}
