import { QueryClientProvider } from '@tanstack/react-query';
import { StatusBar } from 'expo-status-bar';
import { useEffect } from 'react';
import { SafeAreaProvider } from 'react-native-safe-area-context';

import { AppLockGate } from './components/AppLockGate';
import { ErrorBoundary } from './components/ErrorBoundary';
import { loadServerAddress } from './config';
import { Toaster } from './components/Toaster';
import { AppNavigator } from './navigators/AppNavigator';
import { queryClient } from './services/api/queryClient';
import { wireQueryManagers } from './services/appLifecycle';
import { signOut } from './services/api/auth';
import { configureForegroundNotifications, registerForPush } from './services/push';
import { appLock } from './state/appLock';
import { NotificationsProvider } from './state/NotificationsProvider';
import { sessionStore } from './state/session';
import { twoFactorGate } from './state/twoFactorGate';
import { ThemeProvider, useTheme } from './theme';
import { useLanguage } from './i18n/useLanguage';

/**
 * Reads the server address (Android/iOS), then the stored session, so no
 * request leaves before the app knows where to send it; clears the
 * server-data cache (and the two-factor gate) whenever the token goes away.
 */
function useSessionLifecycle() {
  useEffect(() => {
    void loadServerAddress().then(() => sessionStore.hydrate());
    let last = sessionStore.getState().token;
    return sessionStore.subscribe(() => {
      const { token } = sessionStore.getState();
      if (last && !token) {
        queryClient.clear();
        twoFactorGate.clear();
        appLock.reset();
      }
      // Signed in: this phone asks to receive push notifications (Android/iOS; nothing on the web).
      if (token && token !== last) void registerForPush();
      last = token;
    });
  }, []);
}

function ThemedStatusBar() {
  const { scheme } = useTheme();
  return <StatusBar style={scheme === 'dark' ? 'light' : 'dark'} />;
}

wireQueryManagers();
configureForegroundNotifications();

export default function App() {
  useSessionLifecycle();
  // A change of language redraws everything in it.
  const language = useLanguage();
  return (
    <SafeAreaProvider key={language}>
      <ThemeProvider>
        <ErrorBoundary>
          <QueryClientProvider client={queryClient}>
            <NotificationsProvider>
              <AppNavigator />
            </NotificationsProvider>
            <Toaster />
            <AppLockGate onSignOut={() => void signOut({ explicit: true })} />
          </QueryClientProvider>
        </ErrorBoundary>
        <ThemedStatusBar />
      </ThemeProvider>
    </SafeAreaProvider>
  );
}
