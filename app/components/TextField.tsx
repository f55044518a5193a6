import { forwardRef, useState } from 'react';
import { StyleSheet, TextInput, View, type StyleProp, type TextInputProps, type ViewStyle } from 'react-native';

import { fontSize, radius, spacing, useTheme } from '../theme';
import { Text } from './Text';

export type FieldType = 'text' | 'email' | 'password' | 'tel' | 'number' | 'search';

export interface TextFieldProps extends Omit<TextInputProps, 'style'> {
  label?: string;
  type?: FieldType;
  error?: string | null;
  hint?: string;
  required?: boolean;
  containerStyle?: StyleProp<ViewStyle>;
  inputStyle?: TextInputProps['style'];
}

const TYPE_PROPS: Record<FieldType, Partial<TextInputProps>> = {
  text: {},
  // react-native-web renders these as <input type="email|tel|password">.
  email: { keyboardType: 'email-address', autoCapitalize: 'none', autoCorrect: false, autoComplete: 'email' },
  password: { secureTextEntry: true, autoCapitalize: 'none', autoCorrect: false },
  tel: { keyboardType: 'phone-pad', autoComplete: 'tel' },
  number: { keyboardType: 'decimal-pad', inputMode: 'decimal' },
  search: { inputMode: 'search', autoCapitalize: 'none', autoCorrect: false },
};

/** A labelled text input; the label is also the input's accessible name. */
export const TextField = forwardRef<TextInput, TextFieldProps>(function TextField(
  { label, type = 'text', error, hint, required, containerStyle, inputStyle, onFocus, onBlur, ...rest },
  ref,
) {
  const { colors } = useTheme();
  const [focused, setFocused] = useState(false);
  return (
    <View style={[styles.container, containerStyle]}>
      {label ? (
        <Text variant="label" style={styles.label}>
          {label}
          {required ? <Text style={{ color: colors.danger }}> *</Text> : null}
        </Text>
      ) : null}
      <TextInput
        ref={ref}
        accessibilityLabel={label}
        aria-required={required}
        aria-invalid={!!error}
        // Android/iOS know no aria-invalid: the error (or the hint) is read after the label.
        accessibilityHint={error ?? hint}
        placeholderTextColor={colors.textMuted}
        {...TYPE_PROPS[type]}
        {...rest}
        onFocus={(e) => {
          setFocused(true);
          onFocus?.(e);
        }}
        onBlur={(e) => {
          setFocused(false);
          onBlur?.(e);
        }}
        style={[
          styles.input,
          {
            color: colors.text,
            backgroundColor: colors.input,
            borderColor: error ? colors.danger : focused ? colors.primary : colors.border,
          },
          inputStyle,
        ]}
      />
      {error ? (
        <Text variant="small" style={{ color: colors.danger }} accessibilityLiveRegion="polite">
          {error}
        </Text>
      ) : hint ? (
        <Text variant="small">{hint}</Text>
      ) : null}
    </View>
  );
});

const styles = StyleSheet.create({
  container: { gap: spacing.xs },
  label: { marginBottom: 2 },
  input: {
    minHeight: 40,
    borderWidth: 1,
    borderRadius: radius.md,
    paddingHorizontal: spacing.md,
    paddingVertical: spacing.sm,
    fontSize: fontSize.sm,
  },
});
