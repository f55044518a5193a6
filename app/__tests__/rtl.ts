/**
 * The testing library the rendered tests use, per platform. Android/iOS
 * (this file): React Native Testing Library. The web (rtl.web.ts): React
 * Testing Library on react-native-web's DOM in jsdom, behind the same names
 * (`fireEvent.press`, `fireEvent.changeText`, `screen.getByText`...), so one
 * test file runs under the ios, android and web projects of jest.config.js.
 */
import { act, fireEvent, screen, within } from '@testing-library/react-native';

type ReactTestInstance = ReturnType<typeof screen.getByTestId>;

export * from '@testing-library/react-native';

export const onWeb = false;

/** Picks an option of a Select: Android/iOS open the sheet and press the option. */
export function chooseOption(testID: string, label: string): void {
  fireEvent.press(screen.getByTestId(testID));
  fireEvent.press(within(screen.getByTestId(`${testID}-options`)).getByText(label));
}

/** The label a Select shows as chosen (its placeholder when none is). */
export function selectedOption(testID: string): string {
  return String(screen.getByTestId(testID).props.accessibilityValue?.text ?? '');
}

/** The options a Select offers (Android/iOS: the sheet is opened, read and closed again). */
export function optionLabels(testID: string): string[] {
  fireEvent.press(screen.getByTestId(testID));
  const sheet = screen.getByTestId(`${testID}-options`);
  const labels = within(sheet)
    .getAllByRole('button')
    .filter((b) => b.props.testID !== `${testID}-placeholder`)
    .map((b) => String(b.props.accessibilityLabel ?? ''));
  pressEscape();
  return labels;
}

/** Lays an element out at a size (its onLayout), e.g. a table at 390px wide. */
export function layout(element: ReactTestInstance, size: { width: number; height: number }): void {
  fireEvent(element, 'layout', { nativeEvent: { layout: { x: 0, y: 0, ...size } } });
}

/** An element's role (Android/iOS: the role prop; the web: the role attribute). */
export function roleOf(element: ReactTestInstance): string | undefined {
  return element.props.role;
}

/** A style property of an element, as a number where it is one (e.g. width 240). */
export function styleOf(element: ReactTestInstance, property: string): unknown {
  const { StyleSheet } = require('react-native') as typeof import('react-native');
  return (StyleSheet.flatten(element.props.style) as Record<string, unknown>)?.[property];
}

/** Sets the window size (useWindowDimensions follows). */
export function setWindowSize(width: number, height = 800): void {
  const { Dimensions } = require('react-native') as typeof import('react-native');
  const size = { width, height, scale: 1, fontScale: 1 };
  act(() => Dimensions.set({ window: size, screen: size }));
}

/** Whether a text match is a <select>'s option (the web renders every option; Android/iOS only the chosen one). */
export function isOption(_element: ReactTestInstance): boolean {
  return false;
}

/** A text field's current value. */
export function valueOf(element: ReactTestInstance): string {
  return element.props.value;
}

/** Escape on the web, the back button on Android: what closes a modal window (its onRequestClose). */
export function pressEscape(): void {
  const { Modal } = require('react-native') as typeof import('react-native');
  const open = screen.UNSAFE_getAllByType(Modal).filter((m) => m.props.visible);
  fireEvent(open[open.length - 1], 'requestClose');
}
