import { useState } from 'react';
import { FlatList, Modal as RNModal, Pressable, StyleSheet, View } from 'react-native';

import { fontSize, radius, spacing, useTheme } from '../theme';
import { Icon } from './Icon';
import type { SelectProps } from './Select.types';
import { Text } from './Text';
import { Toaster } from './Toaster';

export type { SelectOption, SelectProps } from './Select.types';

/** Android/iOS: a field that opens a list of options in a sheet. */
export function Select<V extends string | number = string>({
  label,
  placeholder,
  options,
  value,
  onChange,
  disabled,
  error,
  testID,
  accessibilityLabel,
}: SelectProps<V>) {
  const { colors } = useTheme();
  const [open, setOpen] = useState(false);
  const selected = options.find((o) => o.value === value);
  const rows = placeholder !== undefined ? [{ label: placeholder, value: null as V | null }, ...options] : options;
  return (
    <View style={styles.container}>
      {label ? <Text variant="label">{label}</Text> : null}
      <Pressable
        testID={testID}
        accessibilityRole="button"
        accessibilityLabel={accessibilityLabel ?? label ?? placeholder}
        accessibilityValue={{ text: selected?.label ?? placeholder ?? '' }}
        disabled={disabled}
        onPress={() => setOpen(true)}
        style={[styles.field, { borderColor: error ? colors.danger : colors.border, backgroundColor: colors.input }, disabled && styles.disabled]}
      >
        <Text style={[styles.value, !selected && { color: colors.textMuted }]} numberOfLines={1}>
          {selected?.label ?? placeholder ?? ''}
        </Text>
        <Icon name="chevron-down" size={16} color={colors.textMuted} />
      </Pressable>
      {error ? (
        <Text variant="small" style={{ color: colors.danger }}>
          {error}
        </Text>
      ) : null}
      <RNModal visible={open} transparent animationType="fade" onRequestClose={() => setOpen(false)}>
        <View style={styles.center}>
          <Pressable style={[StyleSheet.absoluteFill, { backgroundColor: colors.backdrop }]} onPress={() => setOpen(false)} />
          <View style={[styles.sheet, { backgroundColor: colors.surface, borderColor: colors.border }]}>
            {label ? (
              <Text variant="subtitle" style={styles.sheetTitle}>
                {label}
              </Text>
            ) : null}
            <FlatList
              testID={testID ? `${testID}-options` : undefined}
              data={rows}
              keyExtractor={(item, i) => `${String(item.value)}-${i}`}
              renderItem={({ item }) => {
                const isSelected = item.value === value;
                return (
                  <Pressable
                    accessibilityRole="button"
                    accessibilityLabel={item.label}
                    testID={item.value === null && testID ? `${testID}-placeholder` : undefined}
                    accessibilityState={{ selected: isSelected }}
                    onPress={() => {
                      onChange(item.value);
                      setOpen(false);
                    }}
                    style={[styles.option, isSelected && { backgroundColor: colors.primaryMuted }]}
                  >
                    <Text>{item.label}</Text>
                    {isSelected ? <Icon name="check" size={16} color={colors.primary} /> : null}
                  </Pressable>
                );
              }}
            />
          </View>
        </View>
        {open ? <Toaster /> : null}
      </RNModal>
    </View>
  );
}

const styles = StyleSheet.create({
  container: { gap: spacing.xs },
  field: {
    minHeight: 40,
    borderWidth: 1,
    borderRadius: radius.md,
    paddingHorizontal: spacing.md,
    flexDirection: 'row',
    alignItems: 'center',
    justifyContent: 'space-between',
    gap: spacing.sm,
  },
  value: { fontSize: fontSize.sm, flexShrink: 1 },
  disabled: { opacity: 0.5 },
  center: { flex: 1, justifyContent: 'center', padding: spacing.xl },
  sheet: { borderRadius: radius.lg, borderWidth: 1, maxHeight: '70%', paddingVertical: spacing.sm },
  sheetTitle: { paddingHorizontal: spacing.lg, paddingVertical: spacing.sm },
  option: { flexDirection: 'row', justifyContent: 'space-between', paddingHorizontal: spacing.lg, paddingVertical: spacing.md },
});
