import { Pressable, StyleSheet, View, type StyleProp, type ViewStyle } from 'react-native';

import { radius, spacing, useTheme } from '../theme';
import { Text } from './Text';

export interface TabItem<K extends string> {
  key: K;
  label: string;
  testID?: string;
}

export interface TabsProps<K extends string> {
  tabs: TabItem<K>[];
  value: K;
  onChange: (key: K) => void;
  style?: StyleProp<ViewStyle>;
  accessibilityLabel?: string;
}

/** A segmented tab list (role tablist / tab). */
export function Tabs<K extends string>({ tabs, value, onChange, style, accessibilityLabel }: TabsProps<K>) {
  const { colors } = useTheme();
  return (
    <View role="tablist" aria-label={accessibilityLabel} style={[styles.list, { backgroundColor: colors.surfaceMuted }, style]}>
      {tabs.map((tab) => {
        const selected = tab.key === value;
        return (
          <Pressable
            key={tab.key}
            testID={tab.testID}
            role="tab"
            aria-selected={selected}
            accessibilityState={{ selected }}
            onPress={() => onChange(tab.key)}
            style={[styles.tab, selected && { backgroundColor: colors.surface }]}
          >
            <Text variant="label" style={{ color: selected ? colors.text : colors.textMuted }}>
              {tab.label}
            </Text>
          </Pressable>
        );
      })}
    </View>
  );
}

const styles = StyleSheet.create({
  list: { flexDirection: 'row', borderRadius: radius.md, padding: 4, gap: 4 },
  tab: { flex: 1, alignItems: 'center', paddingVertical: spacing.sm, borderRadius: radius.sm },
});
