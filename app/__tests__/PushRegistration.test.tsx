/**
 * Push registration: after sign-in an Android/iOS phone registers its Expo
 * push token (POST /api/user/devices) once the person allows notifications,
 * and sign-out removes it (DELETE) before the session ends. The web has no
 * push: it registers nothing.
 */
import { act, onWeb } from './rtl';

import { signOut } from '../services/api/auth';
import { currentPushRegistration, registerForPush, unregisterPush, type PushPlatform } from '../services/push';
import { sessionStore } from '../state/session';
import { customer } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

const realFetch = global.fetch;

function phone(over: Partial<PushPlatform> = {}): PushPlatform & { asked: jest.Mock } {
  const asked = jest.fn(async () => true);
  return {
    isDevice: true,
    os: 'android',
    permissionGranted: async () => false,
    askPermission: asked,
    prepareChannel: async () => undefined,
    pushToken: async () => 'ExponentPushToken[abc123]',
    ...over,
    asked,
  };
}

function server() {
  return mockFetch({
    'POST /api/user/devices': (body) => jsonResponse(201, { id: 17, ...(body as object), current: true, created_at: '2026-11-25T10:00:00Z' }),
    'DELETE /api/user/devices/17': () => jsonResponse(204),
    'POST /api/auth/logout': () => jsonResponse(204),
  });
}

beforeEach(async () => {
  await sessionStore.signIn('tok', customer);
});

afterEach(async () => {
  await unregisterPush();
  global.fetch = realFetch;
  await act(() => sessionStore.signOut());
});

if (onWeb) {
  it('the web registers no push token (the live socket is all)', async () => {
    const { calls } = server();
    expect(await registerForPush(phone())).toBeNull();
    expect(currentPushRegistration()).toBeNull();
    expect(calls).toHaveLength(0);
  });
} else {
  it('asks for permission, then registers the token with the server', async () => {
    const { calls } = server();
    const device = phone();
    expect(await registerForPush(device)).toEqual({ deviceId: 17, pushToken: 'ExponentPushToken[abc123]' });
    expect(device.asked).toHaveBeenCalledTimes(1);
    const post = calls.find((c) => c.method === 'POST' && c.path === '/api/user/devices');
    expect(post?.body).toEqual({ push_token: 'ExponentPushToken[abc123]', platform: 'android' });
    expect(post?.headers.Authorization).toBe('Bearer tok');
  });

  it('registers nothing when the person refuses, or on a simulator', async () => {
    const { calls } = server();
    expect(await registerForPush(phone({ askPermission: async () => false }))).toBeNull();
    expect(await registerForPush(phone({ isDevice: false }))).toBeNull();
    expect(calls).toHaveLength(0);
  });

  it('a failed registration is no failure of the app', async () => {
    mockFetch({ 'POST /api/user/devices': () => jsonResponse(400, { error: 'push_token must be an Expo push token', code: 'invalid_input' }) });
    expect(await registerForPush(phone())).toBeNull();
  });

  it('sign-out removes the device before it ends the session', async () => {
    const { calls } = server();
    await registerForPush(phone({ permissionGranted: async () => true }));
    await act(() => signOut({ explicit: true }));
    const order = calls.map((c) => `${c.method} ${c.path}`);
    expect(order).toEqual(['POST /api/user/devices', 'DELETE /api/user/devices/17', 'POST /api/auth/logout']);
    expect(calls[1].headers.Authorization).toBe('Bearer tok');
    expect(currentPushRegistration()).toBeNull();
  });
}
