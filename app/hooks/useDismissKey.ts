import { useEffect, useRef } from 'react';
import { BackHandler } from 'react-native';

/**
 * While `active`, the Android back button calls `onDismiss` (and goes no
 * further), e.g. to close the sidebar drawer; the most recently opened layer
 * first (BackHandler calls the last listener first). The web: Escape
 * (useDismissKey.web.ts). A React Native Modal gets the back button through
 * its onRequestClose and needs neither.
 */
export function useDismissKey(active: boolean, onDismiss: () => void): void {
  const handler = useRef(onDismiss);
  handler.current = onDismiss;
  useEffect(() => {
    if (!active) return;
    const sub = BackHandler.addEventListener('hardwareBackPress', () => {
      handler.current();
      return true;
    });
    return () => sub.remove();
  }, [active]);
}
