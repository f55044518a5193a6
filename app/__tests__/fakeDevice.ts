import NetInfo from '@react-native-community/netinfo';
import { AppState } from 'react-native';

type Listener = (status: string) => void;

/** AppState and NetInfo as a phone drives them (restore with jest.restoreAllMocks()). */
export function fakeDevice() {
  const appListeners = new Set<Listener>();
  const netListeners = new Set<(s: { isConnected: boolean }) => void>();
  let current = 'active';
  Object.defineProperty(AppState, 'currentState', { configurable: true, get: () => current });
  jest.spyOn(AppState, 'addEventListener').mockImplementation(((_: string, l: Listener) => {
    appListeners.add(l);
    return { remove: () => appListeners.delete(l) };
  }) as never);
  (NetInfo.addEventListener as jest.Mock).mockImplementation((l: (s: { isConnected: boolean }) => void) => {
    netListeners.add(l);
    return () => netListeners.delete(l);
  });
  return {
    app(status: string) {
      current = status;
      appListeners.forEach((l) => l(status));
    },
    net(isConnected: boolean) {
      netListeners.forEach((l) => l({ isConnected }));
    },
    listeners: () => appListeners.size + netListeners.size,
  };
}

