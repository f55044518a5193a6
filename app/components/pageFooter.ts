import { createContext, useContext, type ReactNode } from 'react';

/**
 * The shell's footer, for a page that scrolls itself (a long virtualized
 * list on Android/iOS): the list shows it after its last row, where the
 * shell's own scroll view would have. Null when the shell scrolls the page.
 */
export const PageFooterContext = createContext<ReactNode>(null);

export function usePageFooter(): ReactNode {
  return useContext(PageFooterContext);
}
