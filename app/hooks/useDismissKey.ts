import { useEffect } from 'react';
import { BackHandler } from 'react-native';

/**
 * While `active`, the Android back button calls `onDismiss` (and goes no
 * further), e.g. to close the sidebar drawer. The web: Escape (useDismissKey.web.ts).
 */
export function useDismissKey(active: boolean, onDismiss: () => void): void {
  useEffect(() => {
    if (!active) return;
    const sub = BackHandler.addEventListener('hardwareBackPress', () => {
      onDismiss();
      return true;
    });
    return () => sub.remove();
  }, [active, onDismiss]);
}
