import { useEffect, useRef } from 'react';

// Open layers (modals, menus, the drawer), oldest first: Escape closes the newest only.
const layers: Array<{ current: () => void }> = [];

function onKeyDown(e: KeyboardEvent) {
  if (e.key !== 'Escape' || layers.length === 0) return;
  e.preventDefault();
  layers[layers.length - 1].current();
}

/**
 * While `active`, Escape calls `onDismiss` (closes the dialog, menu or
 * drawer), the most recently opened first. react-native-web's Modal closes
 * on Escape only once its fade-in has ended (a click during the fade leaves
 * it deaf to Escape), so the app's layers do not rely on it.
 */
export function useDismissKey(active: boolean, onDismiss: () => void): void {
  const handler = useRef(onDismiss);
  handler.current = onDismiss;
  useEffect(() => {
    if (!active || typeof document === 'undefined') return;
    if (layers.length === 0) document.addEventListener('keydown', onKeyDown);
    layers.push(handler);
    return () => {
      layers.splice(layers.indexOf(handler), 1);
      if (layers.length === 0) document.removeEventListener('keydown', onKeyDown);
    };
  }, [active]);
}
