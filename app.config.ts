/**
 * The app's configuration: app.json (the static part), plus what depends on
 * the build. A development build (APP_VARIANT=development: `npx expo start`,
 * or EAS's "development" profile, eas.json) may talk plain http to a server
 * on the LAN: Android's cleartext traffic and iOS's local networking are on,
 * and the Server field accepts http://. Every other build (preview,
 * production) has neither: https only, in the OS and in the app.
 */
import type { ConfigContext, ExpoConfig } from 'expo/config';

/** True for a development build (APP_VARIANT=development). */
export function isDevelopmentVariant(env: Record<string, string | undefined>): boolean {
  return env.APP_VARIANT === 'development';
}

export function buildConfig(base: ExpoConfig, env: Record<string, string | undefined>): ExpoConfig {
  const dev = isDevelopmentVariant(env);
  return {
    ...base,
    ios: {
      ...base.ios,
      infoPlist: {
        ...base.ios?.infoPlist,
        ...(dev ? { NSAppTransportSecurity: { NSAllowsLocalNetworking: true } } : {}),
        NSFaceIDUsageDescription: 'Meridian uses Face ID to unlock your bank after the app was away.',
      },
    },
    plugins: [
      ...(base.plugins ?? []),
      ['expo-build-properties', { android: { usesCleartextTraffic: dev } }],
      ['expo-local-authentication', { faceIDPermission: 'Meridian uses Face ID to unlock your bank after the app was away.' }],
      ['expo-notifications', { color: '#1d4ed8' }],
    ],
    extra: { ...base.extra, allowHttp: dev },
  };
}

export default ({ config }: ConfigContext): ExpoConfig => buildConfig(config as ExpoConfig, process.env);
