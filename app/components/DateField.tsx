import DateTimePicker, { DateTimePickerAndroid } from '@react-native-community/datetimepicker';
import { useState } from 'react';
import { Platform, StyleSheet, View } from 'react-native';

import { t } from '../i18n';
import { spacing } from '../theme';
import { localDateText, localDateTimeText } from '../utils/format';
import { parseLocalDate, parseLocalDateTime } from '../utils/validation';
import { IconButton } from './IconButton';
import { TextField, type TextFieldProps } from './TextField';

export interface DateFieldProps extends Omit<TextFieldProps, 'value' | 'onChangeText' | 'testID'> {
  /** 'date': YYYY-MM-DD; 'datetime': YYYY-MM-DD HH:MM, in the device's time zone. */
  mode: 'date' | 'datetime';
  value: string;
  onChangeText: (text: string) => void;
  testID: string;
}

/**
 * A date (or date and time) field: the text as the forms read it, and beside
 * it a calendar button that opens the platform's own picker (Android: the
 * date dialog, then the time dialog; iOS: the inline calendar). What the
 * picker sets is written into the field. (The web: DateField.web.tsx, text.)
 */
export function DateField({ mode, value, onChangeText, testID, ...field }: DateFieldProps) {
  const [iosOpen, setIosOpen] = useState(false);
  const current = (mode === 'date' ? parseLocalDate(value) : parseLocalDateTime(value)) ?? new Date();
  const write = (d: Date) => onChangeText(mode === 'date' ? localDateText(d) : localDateTimeText(d));

  const open = () => {
    if (Platform.OS !== 'android') {
      setIosOpen((o) => !o);
      return;
    }
    // A dismissed dialog calls no onValueChange: nothing changes.
    DateTimePickerAndroid.open({
      value: current,
      mode: 'date',
      onValueChange: (_, day) => {
        if (mode === 'date') {
          write(day);
          return;
        }
        DateTimePickerAndroid.open({ value: day, mode: 'time', is24Hour: true, onValueChange: (__, time) => write(time) });
      },
    });
  };

  return (
    <View style={styles.stack}>
      <View style={styles.row}>
        <TextField {...field} value={value} onChangeText={onChangeText} testID={testID} containerStyle={styles.field} autoCapitalize="none" autoCorrect={false} />
        <IconButton icon="calendar" accessibilityLabel={t('Choose on a calendar')} testID={`${testID}-picker`} onPress={open} />
      </View>
      {iosOpen ? (
        <DateTimePicker
          testID={`${testID}-calendar`}
          value={current}
          mode={mode}
          display="inline"
          onValueChange={(_, d) => write(d)}
        />
      ) : null}
    </View>
  );
}

const styles = StyleSheet.create({
  stack: { gap: spacing.xs },
  row: { flexDirection: 'row', alignItems: 'flex-end', gap: spacing.xs },
  field: { flex: 1 },
});
