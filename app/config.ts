import { Platform } from 'react-native';

/**
 * Where the API lives.
 * - Web: the Go binary serves the app and the API on one origin, so calls go to `/api`.
 * - Android / iOS: `EXPO_PUBLIC_API_URL` (inlined at build time), e.g. `http://10.0.2.2:8080`.
 */
const DEFAULT_NATIVE_API_URL = 'http://localhost:8080';

export function apiOrigin(): string {
  if (Platform.OS === 'web') return '';
  const configured = process.env.EXPO_PUBLIC_API_URL;
  return (configured && configured.trim() ? configured.trim() : DEFAULT_NATIVE_API_URL).replace(/\/+$/, '');
}

export function apiBaseUrl(): string {
  return `${apiOrigin()}/api`;
}

/** The live-notification socket: ws(s)://<host>/ws?user_id=..&token=.. */
export function notificationSocketUrl(userId: number | string, token: string): string {
  const query = `user_id=${encodeURIComponent(String(userId))}&token=${encodeURIComponent(token)}`;
  if (Platform.OS === 'web' && typeof window !== 'undefined' && window.location) {
    const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${scheme}//${window.location.host}/ws?${query}`;
  }
  return `${apiOrigin().replace(/^http/i, 'ws')}/ws?${query}`;
}
