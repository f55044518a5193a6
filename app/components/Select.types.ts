export interface SelectOption<V extends string | number = string> {
  label: string;
  value: V;
}

export interface SelectProps<V extends string | number = string> {
  label?: string;
  /** Shown (and selectable as "nothing") when no value is chosen, e.g. 'Select an account'. */
  placeholder?: string;
  options: SelectOption<V>[];
  value: V | null;
  onChange: (value: V | null) => void;
  disabled?: boolean;
  error?: string | null;
  testID?: string;
  required?: boolean;
  /** Accessible name when there is no visible label (defaults to label, then placeholder). */
  accessibilityLabel?: string;
}
