import { useSyncExternalStore } from 'react';

import { i18n, language, type Language } from './index';

function subscribe(listener: () => void): () => void {
  i18n.on('languageChanged', listener);
  return () => i18n.off('languageChanged', listener);
}

/** The language in use; a component using it redraws when it changes. */
export function useLanguage(): Language {
  return useSyncExternalStore(subscribe, language, language);
}
