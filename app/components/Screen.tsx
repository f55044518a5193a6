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
}

/** A page inside the shell: the title (h1) and the content. The shell scrolls it. */
export function Screen({ title, actions, children, testID }: ScreenProps) {
  return (
    <View testID={testID} style={styles.page}>
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
  titleRow: { flexDirection: 'row', alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap', gap: spacing.sm },
  title: { flexShrink: 1 },
  actions: { flexDirection: 'row', gap: spacing.sm, flexWrap: 'wrap' },
});
