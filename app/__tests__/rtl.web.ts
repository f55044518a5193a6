/**
 * The web flavour of ./rtl: React Testing Library over react-native-web's DOM
 * (jsdom), with React Native Testing Library's names for what the tests do.
 */
import * as DOM from '@testing-library/react';

export { act, cleanup, render, renderHook, screen, waitFor, within } from '@testing-library/react';

export const onWeb = true;

type Target = Document | Node | Element | Window;

/** `fireEvent(el, name)` plus RNTL's `press` (a click) and `changeText` (typing into an input). */
export const fireEvent = Object.assign(
  (element: Target, event: string, ...args: unknown[]) => {
    const fire = (DOM.fireEvent as unknown as Record<string, (el: Target, init?: unknown) => boolean>)[event];
    if (!fire) throw new Error(`fireEvent(${event}) has no DOM equivalent: keep that test to Android/iOS`);
    return fire(element, args[0]);
  },
  DOM.fireEvent,
  {
    press: (element: Target) => DOM.fireEvent.click(element),
    changeText: (element: Target, value: string) => DOM.fireEvent.change(element, { target: { value } }),
  },
);

/** Picks an option of a Select: on the web a real <select>. */
export function chooseOption(testID: string, label: string): void {
  const select = DOM.screen.getByTestId(testID) as HTMLSelectElement;
  const option = DOM.within(select).getByText(label) as HTMLOptionElement;
  DOM.fireEvent.change(select, { target: { value: option.value } });
}

/** The label a Select shows as chosen (its placeholder when none is). */
export function selectedOption(testID: string): string {
  return (DOM.screen.getByTestId(testID) as HTMLSelectElement).selectedOptions[0]?.text ?? '';
}

/** The options a Select offers (without its placeholder). */
export function optionLabels(testID: string): string[] {
  const select = DOM.screen.getByTestId(testID) as HTMLSelectElement;
  return Array.from(select.options)
    .filter((o) => o.value !== '')
    .map((o) => o.text);
}

/** Lays an element out at a size: react-native-web's onLayout handler, which a ResizeObserver would call. */
export function layout(element: Element, size: { width: number; height: number }): void {
  const handler = (element as unknown as { __reactLayoutHandler?: (e: unknown) => void }).__reactLayoutHandler;
  if (!handler) throw new Error('the element has no onLayout');
  DOM.act(() => handler({ nativeEvent: { layout: { x: 0, y: 0, left: 0, top: 0, ...size } }, timeStamp: Date.now() }));
}

export function roleOf(element: Element): string | undefined {
  return element.getAttribute('role') ?? undefined;
}

export function styleOf(element: Element, property: string): unknown {
  const css = getComputedStyle(element).getPropertyValue(property.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));
  const n = parseFloat(css);
  return /^-?[\d.]+px$/.test(css) ? n : css;
}

/** Sets the window size: react-native-web's Dimensions read the root element's client size on resize. */
export function setWindowSize(width: number, height = 800): void {
  const root = document.documentElement;
  Object.defineProperty(root, 'clientWidth', { configurable: true, get: () => width });
  Object.defineProperty(root, 'clientHeight', { configurable: true, get: () => height });
  DOM.act(() => {
    window.dispatchEvent(new Event('resize'));
  });
}

export function isOption(element: Element): boolean {
  return element.tagName === 'OPTION';
}

export function valueOf(element: Element): string {
  return (element as HTMLInputElement).value;
}

/** Escape, pressed and released (react-native-web closes a modal on keyup; the drawer listens for keydown). */
export function pressEscape(): void {
  DOM.fireEvent.keyDown(document, { key: 'Escape' });
  DOM.fireEvent.keyUp(document, { key: 'Escape' });
}
