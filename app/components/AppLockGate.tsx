import { useEffect, useRef, useState } from 'react';
import { AppState, StyleSheet, View } from 'react-native';

import { t } from '../i18n';
import { useServerConfig } from '../services/api/config';
import { deviceBiometrics, type Biometrics } from '../services/biometrics';
import { appLock as defaultLock, setLockAfter, useAppLock, type AppLock } from '../state/appLock';
import { spacing, useTheme } from '../theme';
import { Button } from './Button';
import { Logo } from './shell/Logo';
import { Text } from './Text';

export interface AppLockGateProps {
  lock?: AppLock;
  biometrics?: Biometrics;
  /** The lock screen's way out: sign out (and in again with the password). */
  onSignOut: () => void;
}

/**
 * Android / iOS: the privacy cover while the app is away (the app switcher
 * shows it instead of the accounts) and the lock screen after `lock_after`
 * in the background, which asks for the device's biometrics or passcode at
 * once and again on "Unlock". (The web: AppLockGate.web.tsx, nothing.)
 */
export function AppLockGate({ lock = defaultLock, biometrics = deviceBiometrics, onSignOut }: AppLockGateProps) {
  const { colors } = useTheme();
  const { covered, locked } = useAppLock(lock);
  const config = useServerConfig();
  const [available, setAvailable] = useState(true);
  const [checking, setChecking] = useState(false);
  const asked = useRef(false);

  useEffect(() => setLockAfter(config.data?.lock_after_seconds), [config.data?.lock_after_seconds]);
  useEffect(() => {
    const sub = AppState.addEventListener('change', (status) => lock.onAppState(status));
    return () => sub.remove();
  }, [lock]);

  const unlock = async () => {
    setChecking(true);
    const can = await biometrics.available();
    setAvailable(can);
    const passed = can && (await biometrics.authenticate(t('Unlock Meridian'), t('Cancel')));
    setChecking(false);
    if (passed) lock.unlock();
  };

  // Ask at once when the lock comes down (once per lock).
  useEffect(() => {
    if (!locked) {
      asked.current = false;
      return;
    }
    if (asked.current) return;
    asked.current = true;
    void unlock();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [locked]);

  if (!locked && !covered) return null;
  return (
    <View style={[StyleSheet.absoluteFill, styles.cover, { backgroundColor: colors.background }]} testID={locked ? 'app-lock' : 'privacy-cover'} role={locked ? 'alert' : undefined}>
      <Logo showName />
      {locked ? (
        <View style={styles.panel}>
          <Text variant="subtitle">{t('Meridian is locked')}</Text>
          <Text variant="muted" style={styles.center}>
            {available ? t('Unlock with Face ID, your fingerprint or your device passcode.') : t('This device has no Face ID, fingerprint or passcode set up: sign in again.')}
          </Text>
          {available ? <Button title={t('Unlock')} testID="app-lock-unlock" loading={checking} onPress={() => void unlock()} /> : null}
          <Button
            title={t('Sign out')}
            variant="outline"
            testID="app-lock-sign-out"
            onPress={() => {
              lock.reset();
              onSignOut();
            }}
          />
        </View>
      ) : null}
    </View>
  );
}

const styles = StyleSheet.create({
  cover: { alignItems: 'center', justifyContent: 'center', gap: spacing.xl, padding: spacing.xl, zIndex: 1000, elevation: 1000 },
  panel: { alignItems: 'center', gap: spacing.md, maxWidth: 360 },
  center: { textAlign: 'center' },
});
