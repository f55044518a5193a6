/**
 * A dialog's Tab order starts at its X, never at the invisible backdrop
 * behind it; screen readers skip the backdrop too. A click on the backdrop
 * still closes the dialog. Toasts sit below the 60 px header.
 */
import { act, fireEvent, onWeb, screen } from '../__tests__/rtl';
import { Text } from 'react-native';

import { renderElement } from '../__tests__/screenHarness';
import { toast } from '../state/toast';
import { layout } from '../theme';
import { Modal } from './Modal';

afterEach(() => act(() => toast.dismiss()));

function renderDialog(onClose = jest.fn()) {
  renderElement(
    <Modal visible onClose={onClose} title="Transfer Funds" testID="dialog">
      <Text>body</Text>
    </Modal>,
    { notifications: false },
  );
  return onClose;
}

it('puts the X first in the Tab order; the backdrop is no control', () => {
  const onClose = renderDialog();
  const backdrop = (onWeb ? screen.getByTestId('dialog-backdrop') : screen.getByTestId('dialog-backdrop', { includeHiddenElements: true } as never)) as unknown as HTMLElement & { props?: Record<string, unknown> };
  if (onWeb) {
    const layer = screen.getByTestId('dialog-layer') as unknown as HTMLElement;
    const tabbable = Array.from(layer.querySelectorAll<HTMLElement>('[tabindex], button, a[href], input, select, textarea')).filter(
      (el) => el.getAttribute('tabindex') !== '-1' && !el.hasAttribute('disabled'),
    );
    expect(tabbable[0]?.getAttribute('aria-label')).toBe('Close');
    expect(backdrop.getAttribute('tabindex')).not.toBe('0');
    expect(backdrop.getAttribute('aria-hidden')).toBe('true');
    expect(backdrop.getAttribute('role')).toBeNull();
  } else {
    expect(backdrop.props?.accessible).toBe(false);
    expect(backdrop.props?.importantForAccessibility).toBe('no-hide-descendants');
  }
  fireEvent.press(backdrop as never);
  expect(onClose).toHaveBeenCalledTimes(1);
});

it('shows toasts below the header, clear of the bell and the avatar', () => {
  renderDialog();
  act(() => {
    toast.success('Transfer successful!');
  });
  const region = screen.getByTestId('toaster') as unknown as HTMLElement & { props?: { style?: unknown } };
  const top = onWeb
    ? parseFloat(getComputedStyle(region).top)
    : (([] as Array<Record<string, number>>).concat(region.props?.style as never).flat(Infinity as 1) as Array<Record<string, number>>).reduce((v, s) => s?.top ?? v, NaN);
  expect(top).toBeGreaterThanOrEqual(layout.headerHeight);
});
