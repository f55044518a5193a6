import { StyleSheet, View } from 'react-native';

import { fontSize, radius, spacing, useTheme, WEB_FONT_STACK } from '../theme';
import type { SelectProps } from './Select.types';
import { Text } from './Text';

export type { SelectOption, SelectProps } from './Select.types';

/** Web: a real <select>, so the browser's keyboard and screen-reader support comes for free. */
export function Select<V extends string | number = string>({
  label,
  placeholder,
  options,
  value,
  onChange,
  disabled,
  error,
  testID,
  required,
  accessibilityLabel,
}: SelectProps<V>) {
  const { colors } = useTheme();
  const index = value === null ? -1 : options.findIndex((o) => o.value === value);
  return (
    <View style={styles.container}>
      {label ? <Text variant="label">{label}</Text> : null}
      <select
        data-testid={testID}
        aria-label={accessibilityLabel ?? label ?? placeholder}
        aria-invalid={!!error}
        required={required}
        disabled={disabled}
        value={index === -1 ? '' : String(index)}
        onChange={(e) => {
          const i = e.currentTarget.value === '' ? -1 : Number(e.currentTarget.value);
          onChange(i === -1 ? null : options[i].value);
        }}
        style={{
          minHeight: 40,
          borderRadius: radius.md,
          border: `1px solid ${error ? colors.danger : colors.border}`,
          padding: `${spacing.sm}px ${spacing.md}px`,
          fontSize: fontSize.sm,
          color: colors.text,
          backgroundColor: colors.input,
          fontFamily: WEB_FONT_STACK, // not 'inherit': its parents are plain divs in the browser's serif
          width: '100%',
        }}
      >
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options.map((o, i) => (
          <option key={String(o.value)} value={String(i)}>
            {o.label}
          </option>
        ))}
      </select>
      {error ? (
        <Text variant="small" style={{ color: colors.danger }}>
          {error}
        </Text>
      ) : null}
    </View>
  );
}

const styles = StyleSheet.create({ container: { gap: spacing.xs } });
