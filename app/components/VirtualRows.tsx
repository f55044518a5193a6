import type { ReactElement, ReactNode } from 'react';
import { FlatList, Platform, RefreshControl, StyleSheet } from 'react-native';

import { usePullToRefresh } from '../hooks/usePullToRefresh';

/** Android/iOS: the rows scroll inside the list (the footer is its last item). */
export const ROWS_SCROLL_THEMSELVES = true;

export interface VirtualRowsProps<T> {
  data: T[];
  keyExtractor: (row: T, index: number) => string;
  renderRow: (row: T, index: number) => ReactElement;
  /** After the last row, e.g. "Load more" and the page footer. */
  footer?: ReactNode;
}

/**
 * Rows of a long table, virtualized: only the rows near the screen exist, so
 * a history grown by "Load more" stays light on a phone. (The web keeps a
 * real table in the page: VirtualRows.web.tsx.)
 */
export function VirtualRows<T>({ data, keyExtractor, renderRow, footer }: VirtualRowsProps<T>) {
  const pull = usePullToRefresh();
  return (
    <FlatList
      refreshControl={<RefreshControl testID="pull-to-refresh" refreshing={pull.refreshing} onRefresh={pull.onRefresh} />}
      data={data}
      keyExtractor={keyExtractor}
      renderItem={({ item, index }) => renderRow(item, index)}
      ListFooterComponent={footer ? <>{footer}</> : null}
      initialNumToRender={20}
      maxToRenderPerBatch={20}
      windowSize={7}
      removeClippedSubviews={Platform.OS === 'android'}
      keyboardShouldPersistTaps="handled"
      style={styles.list}
    />
  );
}

const styles = StyleSheet.create({ list: { flex: 1 } });
