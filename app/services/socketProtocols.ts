/**
 * The WebSocket's subprotocols: 'meridian' and 'meridian.bearer.<token>'. A
 * browser cannot set headers on a WebSocket, and a token in the URL would be
 * kept by proxies and histories; the server reads it from the offered
 * subprotocols and answers 'meridian' alone (server/ws.go).
 */
export const SOCKET_PROTOCOL = 'meridian';
export const SOCKET_BEARER_PREFIX = 'meridian.bearer.';

export function socketProtocols(token: string): string[] {
  return [SOCKET_PROTOCOL, `${SOCKET_BEARER_PREFIX}${token}`];
}

/** The close code of a session that ended (revoked, expired, user deactivated): contract §5. */
export const SESSION_ENDED_CLOSE_CODE = 4401;
