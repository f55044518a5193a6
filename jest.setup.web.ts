// jsdom has no layout: ResizeObserver (react-native-web's onLayout, the safe-area
// provider) observes nothing, so components keep their first-render layout, as
// they do under the native presets where no layout event fires either.
class NoLayoutResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}
(globalThis as { ResizeObserver?: unknown }).ResizeObserver ??= NoLayoutResizeObserver;

// jsdom runs no CSS animations, so react-native-web's Modal would wait forever
// for the 'animationend' of its fade-out and never unmount: no animation in tests.
jest.mock('react-native-web/dist/exports/Modal/ModalAnimation', () => {
  const actual = jest.requireActual('react-native-web/dist/exports/Modal/ModalAnimation');
  const ModalAnimation = actual.default;
  return { __esModule: true, default: (props: object) => ModalAnimation({ ...props, animationType: 'none' }) };
});

// jsdom lacks TextEncoder, which browsers and Hermes have (the QR code encoder uses it).
if (typeof globalThis.TextEncoder === 'undefined') {
  (globalThis as { TextEncoder?: unknown }).TextEncoder = require('util').TextEncoder;
}
