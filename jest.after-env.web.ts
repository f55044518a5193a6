import '@testing-library/jest-dom';
import { configure } from '@testing-library/react';

// findBy*/waitFor: lazy screens are required on first use, which takes a moment on a cold cache.
configure({ asyncUtilTimeout: 5000 });

/**
 * react-native-web renders a disabled Pressable as aria-disabled, a selected
 * tab or link as aria-selected / aria-current, an open menu trigger as
 * aria-expanded: the matchers the native tests use, read from those.
 */
const attr = (el: Element, name: string) => el.getAttribute(name);
expect.extend({
  toBeDisabled(el: Element) {
    const pass = attr(el, 'aria-disabled') === 'true' || (el as HTMLButtonElement).disabled === true;
    return { pass, message: () => `expected element ${pass ? 'not ' : ''}to be disabled` };
  },
  toBeEnabled(el: Element) {
    const pass = !(attr(el, 'aria-disabled') === 'true' || (el as HTMLButtonElement).disabled === true);
    return { pass, message: () => `expected element ${pass ? 'not ' : ''}to be enabled` };
  },
  toBeSelected(el: Element) {
    const pass = attr(el, 'aria-selected') === 'true' || attr(el, 'aria-current') === 'page';
    return { pass, message: () => `expected element ${pass ? 'not ' : ''}to be selected` };
  },
  toBeExpanded(el: Element) {
    const pass = attr(el, 'aria-expanded') === 'true';
    return { pass, message: () => `expected element ${pass ? 'not ' : ''}to be expanded` };
  },
  toBeCollapsed(el: Element) {
    const pass = attr(el, 'aria-expanded') === 'false';
    return { pass, message: () => `expected element ${pass ? 'not ' : ''}to be collapsed` };
  },
});
