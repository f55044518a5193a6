/** The web has no push notifications: the live socket is all (see push.ts). */

export async function registerForPush(): Promise<null> {
  return null;
}

export async function unregisterPush(): Promise<void> {}

export function currentPushRegistration(): null {
  return null;
}

export function configureForegroundNotifications(): void {}
