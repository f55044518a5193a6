import { TextField } from './TextField';
import type { DateFieldProps } from './DateField';

/** The web: the date typed as text (YYYY-MM-DD [HH:MM]); the phones add their own picker (DateField.tsx). */
export function DateField({ mode: _mode, testID, ...field }: DateFieldProps) {
  return <TextField {...field} testID={testID} autoCapitalize="none" autoCorrect={false} />;
}
