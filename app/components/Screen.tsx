import type { ReactNode } from 'react';
import { StyleSheet, View } from 'react-native';

import { spacing } from '../theme';
import { Text } from './Text';

export interface ScreenProps {
  title: string;
  /** Buttons on the right of the title. */
  actions?: ReactNode;
  children?: ReactNode;
  testID?: string;
  /** Fill the height (a page whose long list scrolls itself). */
  fill?: boolean;
}

/** A page inside the shell: the title (h1) and the content. The shell scrolls it. */
export function Screen({ title, actions, children, testID, fill }: ScreenProps) {
  return (
    <View testID={testID} style={[styles.page, fill && styles.fill]}>
      <View style={styles.titleRow}>
        <Text variant="heading" testID="page-title" style={styles.title}>
          {title}
        </Text>
        {actions ? <View style={styles.actions}>{actions}</View> : null}
      </View>
      {children}
    </View>
  );
}

const styles = StyleSheet.create({
  page: { padding: spacing.lg, gap: spacing.lg },
  fill: { flex: 1 },
  titleRow: { flexDirection: 'row', alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap', gap: spacing.sm },
  title: { flexShrink: 1 },
  actions: { flexDirection: 'row', gap: spacing.sm, flexWrap: 'wrap' },
});
