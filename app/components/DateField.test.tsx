/**
 * Dates in the scheduled-transfer and statement forms: typed as text
 * everywhere, and on Android/iOS also picked with the platform's own picker
 * (Android: the date dialog, then the time dialog; iOS: the inline calendar),
 * which writes the field.
 */
import { useState } from 'react';
import { Platform } from 'react-native';

import { act, fireEvent, onWeb, screen } from '../__tests__/rtl';
import { renderElement } from '../__tests__/screenHarness';
import { DateField } from './DateField';

function Form({ mode }: { mode: 'date' | 'datetime' }) {
  const [value, setValue] = useState('2030-01-02 09:30'.slice(0, mode === 'date' ? 10 : 16));
  return <DateField mode={mode} label="First run" value={value} onChangeText={setValue} testID="when" />;
}

const fieldValue = () => {
  const el = screen.getByTestId('when') as unknown as { props?: { value?: string }; value?: string };
  return onWeb ? (el as unknown as HTMLInputElement).value : el.props?.value;
};

afterEach(() => jest.restoreAllMocks());

it('takes a typed date on every platform', () => {
  renderElement(<Form mode="datetime" />, { notifications: false });
  fireEvent.changeText(screen.getByTestId('when'), '2031-05-06 07:08');
  expect(fieldValue()).toBe('2031-05-06 07:08');
  if (onWeb) expect(screen.queryByTestId('when-picker')).toBeNull(); // text only on the web
});

if (!onWeb) {
  // The picker's module exists on Android/iOS only (the web field imports none).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const picker = require('@react-native-community/datetimepicker') as typeof import('@react-native-community/datetimepicker');
  const { DateTimePickerAndroid } = picker;
  type Handler = (e: unknown, d: Date) => void;

  it("opens the platform's picker and writes what it sets", async () => {
    const opened: Array<{ mode?: string; onValueChange?: Handler }> = [];
    if (Platform.OS === 'android') {
      jest.spyOn(DateTimePickerAndroid, 'open').mockImplementation((props) => {
        opened.push(props as never);
      });
    }
    renderElement(<Form mode="datetime" />, { notifications: false });
    fireEvent.press(screen.getByTestId('when-picker'));
    const picked = new Date(2032, 2, 4, 15, 45);
    if (Platform.OS === 'android') {
      expect(opened[0].mode).toBe('date');
      await act(async () => opened[0].onValueChange?.({}, new Date(2032, 2, 4)));
      expect(opened[1].mode).toBe('time');
      await act(async () => opened[1].onValueChange?.({}, picked));
    } else {
      const calendar = screen.UNSAFE_getByType(picker.default);
      expect(calendar.props.mode).toBe('datetime');
      await act(async () => calendar.props.onValueChange({}, picked));
    }
    expect(fieldValue()).toBe('2032-03-04 15:45');
  });

  it('a date field writes the day alone', async () => {
    const opened: Array<{ mode?: string; onValueChange?: Handler }> = [];
    if (Platform.OS === 'android') {
      jest.spyOn(DateTimePickerAndroid, 'open').mockImplementation((props) => {
        opened.push(props as never);
      });
    }
    renderElement(<Form mode="date" />, { notifications: false });
    fireEvent.press(screen.getByTestId('when-picker'));
    const day = new Date(2033, 11, 24, 18, 0);
    if (Platform.OS === 'android') await act(async () => opened[0].onValueChange?.({}, day));
    else await act(async () => screen.UNSAFE_getByType(picker.default).props.onValueChange({}, day));
    expect(fieldValue()).toBe('2033-12-24');
    expect(opened.length).toBeLessThanOrEqual(1); // no time dialog for a day
  });
}
