import { ActivityIndicator, StyleSheet, View } from 'react-native';

import { spacing, useTheme } from '../theme';
import { Text } from './Text';

export function Loading({ text, testID }: { text?: string; testID?: string }) {
  const { colors } = useTheme();
  return (
    <View testID={testID} style={styles.center} accessibilityLiveRegion="polite" aria-busy>
      <ActivityIndicator color={colors.primary} />
      {text ? <Text variant="muted">{text}</Text> : null}
    </View>
  );
}

const styles = StyleSheet.create({ center: { flex: 1, alignItems: 'center', justifyContent: 'center', padding: spacing.xl, gap: spacing.sm } });
