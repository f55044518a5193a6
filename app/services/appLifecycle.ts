import NetInfo from '@react-native-community/netinfo';
import { focusManager, onlineManager } from '@tanstack/react-query';
import { AppState, type AppStateStatus } from 'react-native';

/**
 * Android / iOS: TanStack Query learns focus from AppState ('active' = the
 * app is in front) and connectivity from NetInfo, so stale queries refetch
 * when the app comes back or the network returns, and nothing is fetched
 * while offline. (The web keeps TanStack's defaults: visibilitychange and
 * the online event; see appLifecycle.web.ts.)
 */
export function wireQueryManagers(): void {
  onlineManager.setEventListener((setOnline) => NetInfo.addEventListener((state) => setOnline(state.isConnected !== false)));
  focusManager.setEventListener((handleFocus) => {
    const sub = AppState.addEventListener('change', (status: AppStateStatus) => handleFocus(status === 'active'));
    return () => sub.remove();
  });
}

export interface AppLifecycleListeners {
  /** Back in front, or the network came back. */
  onForeground: () => void;
  /** Sent to the background ('inactive', iOS's short transitions, does not count). */
  onBackground: () => void;
}

/** Follows the app going to the background and coming back (and the network going and returning). */
export function subscribeAppLifecycle({ onForeground, onBackground }: AppLifecycleListeners): () => void {
  let away = AppState.currentState === 'background';
  const appSub = AppState.addEventListener('change', (status) => {
    if (status === 'active' && away) {
      away = false;
      onForeground();
    } else if (status === 'background' && !away) {
      away = true;
      onBackground();
    }
  });
  let online = true;
  const netUnsub = NetInfo.addEventListener((state) => {
    const now = state.isConnected !== false;
    if (now && !online && AppState.currentState === 'active') onForeground();
    online = now;
  });
  return () => {
    appSub.remove();
    netUnsub();
  };
}
