import type { VirtualRowsProps } from './VirtualRows';

/** The web: the rows stay in the page's table (the page scrolls; the footer follows the table). */
export const ROWS_SCROLL_THEMSELVES = false;

export function VirtualRows<T>({ data, renderRow }: VirtualRowsProps<T>) {
  return <>{data.map((row, i) => renderRow(row, i))}</>;
}
