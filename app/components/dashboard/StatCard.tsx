import type { ReactNode } from 'react';
import { StyleSheet } from 'react-native';

import { Card } from '../Card';
import { Text } from '../Text';

/** One figure of the dashboard: a title and a large value. */
export function StatCard({ title, value, testID, action, children }: { title: string; value?: ReactNode; testID?: string; action?: ReactNode; children?: ReactNode }) {
  return (
    <Card title={title} action={action} style={styles.card}>
      {value !== undefined ? (
        <Text variant="title" testID={testID}>
          {value}
        </Text>
      ) : null}
      {children}
    </Card>
  );
}

const styles = StyleSheet.create({
  card: { flexGrow: 1, flexBasis: 220, minWidth: 0 },
});
