import { useState, type ReactNode } from 'react';
import { ActivityIndicator, ScrollView, StyleSheet, View, type LayoutChangeEvent } from 'react-native';

import { radius, spacing, useTheme } from '../theme';
import { usePageFooter } from './pageFooter';
import { Text } from './Text';
import { ROWS_SCROLL_THEMSELVES, VirtualRows } from './VirtualRows';
import { t } from '../i18n';

export interface Column<T> {
  key: string;
  title: string;
  /** Cell content; defaults to String(row[key]). */
  render?: (row: T, index: number) => ReactNode;
  /** Relative width in the wide layout (default 1). */
  flex?: number;
  /** The least width in the wide layout: a button's label that must stay on one line ("Daily limit" at 1280 px). */
  minWidth?: number;
  align?: 'left' | 'right' | 'center';
}

export interface DataTableProps<T> {
  columns: Column<T>[];
  data: T[] | undefined;
  keyExtractor: (row: T, index: number) => string;
  /** Scroll inside the table beyond this height (e.g. 300 or 500 on the dashboard). */
  maxHeight?: number;
  loading?: boolean;
  loadingText?: string;
  error?: string | null;
  emptyText?: string;
  /** Below this container width rows become stacked cards (default 600px). */
  stackBelow?: number;
  testID?: string;
  /**
   * Accessibility of the stacked (card) layout: 'list' makes it a list of
   * list items, which is what it is (a table role there has no rows, an
   * axe-core critical violation). Default 'table' keeps the earlier markup.
   */
  stackedRole?: 'table' | 'list';
  /**
   * A long list ("Load more"): on Android/iOS the rows are virtualized and
   * scroll inside the table, which fills the page (put the screen in
   * `listScreen` mode); the web keeps the table in the page.
   */
  virtualized?: boolean;
  /** Below the rows (e.g. "Load more"): inside the scrolling list when virtualized, else after the table. */
  footer?: ReactNode;
}

/**
 * A table that stays readable at 390px: a header row plus rows when wide,
 * one card per row ("Title: value" lines) when narrow.
 */
export function DataTable<T>({
  columns,
  data,
  keyExtractor,
  maxHeight,
  loading,
  loadingText = 'Loading...',
  error,
  emptyText = t('No data'),
  stackBelow = 600,
  testID,
  stackedRole = 'list',
  virtualized = false,
  footer,
}: DataTableProps<T>) {
  const { colors } = useTheme();
  const pageFooter = usePageFooter();
  const [width, setWidth] = useState<number | null>(null);
  const narrow = width !== null && width < stackBelow;
  const onLayout = (e: LayoutChangeEvent) => setWidth(e.nativeEvent.layout.width);

  const cell = (col: Column<T>, row: T, i: number): ReactNode => {
    const content = col.render ? col.render(row, i) : String((row as Record<string, unknown>)[col.key] ?? '');
    return typeof content === 'string' || typeof content === 'number' ? <Text variant="muted" style={{ color: colors.text }}>{content}</Text> : content;
  };

  let body: ReactNode;
  if (loading) {
    body = (
      <View style={styles.state}>
        <ActivityIndicator color={colors.primary} />
        <Text variant="muted">{loadingText}</Text>
      </View>
    );
  } else if (error) {
    body = (
      <View style={styles.state}>
        <Text variant="muted" style={{ color: colors.danger }} role="alert">
          {error}
        </Text>
      </View>
    );
  } else if (!data || data.length === 0) {
    body = (
      <View style={styles.state}>
        <Text variant="muted">{emptyText}</Text>
      </View>
    );
  } else {
    const renderRow = narrow
      ? (row: T, i: number) => (
          <View
            key={keyExtractor(row, i)}
            testID={testID ? `${testID}-row` : undefined}
            role={stackedRole === 'list' ? 'listitem' : undefined}
            style={[styles.card, { borderColor: colors.border }]}
          >
            {columns.map((col) => (
              <View key={col.key} style={styles.cardLine}>
                <Text variant="small" style={styles.cardLabel}>
                  {col.title}
                </Text>
                <View style={styles.cardValue}>{cell(col, row, i)}</View>
              </View>
            ))}
          </View>
        )
      : (row: T, i: number) => (
          <View
            key={keyExtractor(row, i)}
            testID={testID ? `${testID}-row` : undefined}
            role="row"
            style={[styles.row, { borderColor: colors.border }]}
          >
            {columns.map((col) => (
              <View key={col.key} role="cell" style={[styles.cell, { flex: col.flex ?? 1, minWidth: col.minWidth ?? 0, alignItems: alignOf(col.align) }]}>
                {cell(col, row, i)}
              </View>
            ))}
          </View>
        );
    body = virtualized ? (
      <VirtualRows
        data={data}
        keyExtractor={keyExtractor}
        renderRow={renderRow}
        footer={
          footer || pageFooter ? (
            <>
              {footer}
              {pageFooter}
            </>
          ) : null
        }
      />
    ) : (
      data.map(renderRow)
    );
  }

  // Android/iOS, a virtualized list with rows: the list scrolls (the footer is its last item).
  const scrollsItself = virtualized && ROWS_SCROLL_THEMSELVES && !loading && !error && !!data && data.length > 0;

  const table = (
    <View
      testID={testID}
      // An empty stacked list (loading, failed, nothing to show) is no list: a list holds list items only.
      role={narrow && stackedRole === 'list' ? (data?.length && !loading && !error ? 'list' : undefined) : 'table'}
      onLayout={onLayout}
      style={[styles.table, { borderColor: colors.border }, scrollsItself && styles.fill]}
    >
      {!narrow ? (
        <View role="row" style={[styles.row, styles.headerRow, { borderColor: colors.border, backgroundColor: colors.surfaceMuted }]}>
          {columns.map((col) => (
            <View key={col.key} role="columnheader" style={[styles.cell, { flex: col.flex ?? 1, minWidth: col.minWidth ?? 0, alignItems: alignOf(col.align) }]}>
              <Text variant="label" style={{ color: colors.textMuted }}>
                {col.title}
              </Text>
            </View>
          ))}
        </View>
      ) : null}
      {body}
    </View>
  );
  if (scrollsItself) return table;
  // Not scrolling inside: the footer follows the table (never inside it: a table holds rows only).
  const withFooter =
    footer || (virtualized && pageFooter) ? (
      <>
        {table}
        {footer}
        {virtualized ? pageFooter : null}
      </>
    ) : (
      table
    );
  if (!maxHeight) return withFooter;
  // A height-capped table scrolls by itself. The scroll container wraps the
  // whole table (nothing may stand between a table and its rows) and is
  // focusable, so keyboard users can scroll it too.
  return (
    <ScrollView style={{ maxHeight }} nestedScrollEnabled focusable>
      {table}
    </ScrollView>
  );
}

function alignOf(align: Column<unknown>['align']) {
  return align === 'right' ? 'flex-end' : align === 'center' ? 'center' : 'flex-start';
}

const styles = StyleSheet.create({
  table: { borderWidth: 1, borderRadius: radius.md, overflow: 'hidden' },
  fill: { flex: 1 },
  headerRow: { borderTopWidth: 0 },
  row: { flexDirection: 'row', borderTopWidth: StyleSheet.hairlineWidth, minHeight: 44, alignItems: 'center' },
  cell: { paddingHorizontal: spacing.md, paddingVertical: spacing.sm, justifyContent: 'center', minWidth: 0 },
  state: { padding: spacing.xl, alignItems: 'center', gap: spacing.sm },
  card: { borderTopWidth: StyleSheet.hairlineWidth, padding: spacing.md, gap: spacing.xs },
  cardLine: { flexDirection: 'row', gap: spacing.sm, alignItems: 'center' },
  cardLabel: { width: 120, fontWeight: '600' },
  cardValue: { flex: 1, minWidth: 0, alignItems: 'flex-start' },
});
