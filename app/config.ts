import { serverAddress } from './services/serverAddress';

/**
 * Where the API lives on Android / iOS: the server chosen on the sign-in
 * screen (remembered), by default the build's `EXPO_PUBLIC_API_URL` (see
 * services/serverAddress.ts). The web build uses config.web.ts (its own origin).
 */
export function apiOrigin(): string {
  return serverAddress.get();
}

/** Reads the remembered server address (before the session, so no request goes astray). */
export function loadServerAddress(): Promise<void> {
  return serverAddress.hydrate();
}

export function apiBaseUrl(): string {
  return `${apiOrigin()}/api`;
}

/** The live-notification socket: ws(s)://<server>/ws?user_id=.. (the token goes as a subprotocol: socketProtocols). */
export function notificationSocketUrl(userId: number | string): string {
  return `${apiOrigin().replace(/^http/i, 'ws')}/ws?user_id=${encodeURIComponent(String(userId))}`;
}

export { socketProtocols } from './services/socketProtocols';
