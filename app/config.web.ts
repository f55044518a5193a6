/**
 * The web: the Go binary serves the app and the API on one origin, so calls
 * go to `/api` and the socket to this host's /ws. (Android / iOS: config.ts.)
 */
export function apiOrigin(): string {
  return '';
}

export function loadServerAddress(): Promise<void> {
  return Promise.resolve();
}

export function apiBaseUrl(): string {
  return '/api';
}

/** The live-notification socket: ws(s)://<this host>/ws?user_id=.. (the token goes as a subprotocol: socketProtocols). */
export function notificationSocketUrl(userId: number | string): string {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${window.location.host}/ws?user_id=${encodeURIComponent(String(userId))}`;
}

export { socketProtocols } from './services/socketProtocols';
