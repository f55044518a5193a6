import Constants from 'expo-constants';
import * as Device from 'expo-device';
import { Platform } from 'react-native';

import { client } from './api/typed';

/**
 * Push notifications (Android / iOS): after sign-in the phone asks for
 * permission, gets its Expo push token and registers it with the server
 * (POST /api/user/devices), which pushes money received, requests and
 * scheduled-run results while the app has no live socket open (the pusher,
 * pkg/bank/pusher.go). Sign-out removes it (DELETE /api/user/devices/{id});
 * a session that ends another way stops the pushes on the server's side.
 * The web has no push (push.web.ts).
 */
export interface PushPlatform {
  /** A real phone (simulators and emulators get no push token). */
  isDevice: boolean;
  os: 'ios' | 'android';
  permissionGranted(): Promise<boolean>;
  /** Asks the person; true when they allow notifications. */
  askPermission(): Promise<boolean>;
  /** Android: the channel notifications arrive on. */
  prepareChannel(): Promise<void>;
  /** The Expo push token ('ExponentPushToken[...]'). */
  pushToken(): Promise<string>;
}

type NotificationsModule = typeof import('expo-notifications');

/**
 * expo-notifications, loaded on first use: on Android, Expo Go has no push
 * since SDK 53 and the module throws when it loads; then this phone simply
 * gets no pushes (a development or store build has them).
 */
function notifications(): NotificationsModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('expo-notifications') as NotificationsModule;
}

export const expoPushPlatform: PushPlatform = {
  isDevice: Device.isDevice,
  os: Platform.OS === 'ios' ? 'ios' : 'android',
  async permissionGranted() {
    return (await notifications().getPermissionsAsync()).granted;
  },
  async askPermission() {
    return (await notifications().requestPermissionsAsync()).granted;
  },
  async prepareChannel() {
    if (Platform.OS === 'android') {
      const n = notifications();
      await n.setNotificationChannelAsync('default', { name: 'Meridian', importance: n.AndroidImportance.HIGH });
    }
  },
  async pushToken() {
    const projectId = Constants.expoConfig?.extra?.eas?.projectId ?? Constants.easConfig?.projectId;
    return (await notifications().getExpoPushTokenAsync(projectId ? { projectId } : undefined)).data;
  },
};

/** This phone's registration with the server, while signed in. */
export interface PushRegistration {
  deviceId: number;
  pushToken: string;
}

let current: PushRegistration | null = null;

/** The registration of this session, if any (tests, diagnostics). */
export function currentPushRegistration(): PushRegistration | null {
  return current;
}

/**
 * Registers this phone for push notifications: null when it cannot (not a
 * real phone, permission refused, no token). Never throws: a bank app
 * without pushes still works.
 */
export async function registerForPush(platform: PushPlatform = expoPushPlatform): Promise<PushRegistration | null> {
  if (!platform.isDevice) return null;
  try {
    await platform.prepareChannel();
    const granted = (await platform.permissionGranted()) || (await platform.askPermission());
    if (!granted) return null;
    const pushToken = await platform.pushToken();
    const device = await client.POST('/api/user/devices', { body: { push_token: pushToken, platform: platform.os } });
    current = { deviceId: device.id, pushToken };
    return current;
  } catch {
    return null;
  }
}

/** Stops the pushes to this phone (sign-out); errors are ignored (the session's end stops them anyway). */
export async function unregisterPush(): Promise<void> {
  const reg = current;
  current = null;
  if (!reg) return;
  try {
    await client.DELETE('/api/user/devices/{id}', { params: { path: { id: reg.deviceId } } });
  } catch {
    // Signed out elsewhere already: the server ended the device with the session.
  }
}

/** While the app is in front the live socket shows a toast: no banner then. */
export function configureForegroundNotifications(): void {
  try {
    notifications().setNotificationHandler({
      handleNotification: async () => ({ shouldShowBanner: false, shouldShowList: true, shouldPlaySound: false, shouldSetBadge: false }),
    });
  } catch {
    // No push here (Expo Go on Android): nothing to configure.
  }
}
