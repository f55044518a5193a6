import { useEffect } from 'react';

/** While `active`, Escape calls `onDismiss` (e.g. closes the sidebar drawer). */
export function useDismissKey(active: boolean, onDismiss: () => void): void {
  useEffect(() => {
    if (!active || typeof document === 'undefined') return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onDismiss();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [active, onDismiss]);
}
