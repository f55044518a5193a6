import { randomUUID } from 'expo-crypto';

/**
 * A random (v4) UUID from the platform's secure generator. Android / iOS:
 * expo-crypto (Hermes has no crypto.randomUUID, and Math.random is no
 * source for keys). The web: see uuid.web.ts.
 */
export function uuid(): string {
  return randomUUID();
}
