import { BackHandler } from 'react-native';

import { onWeb, pressEscape, renderHook } from '../__tests__/rtl';
import { useDismissKey } from './useDismissKey';

afterEach(() => jest.restoreAllMocks());

if (onWeb) {
  it('web: Escape closes the most recently opened layer only, then the one below', () => {
    const below = jest.fn();
    const top = jest.fn();
    const first = renderHook(() => useDismissKey(true, below));
    const second = renderHook(({ active }: { active: boolean }) => useDismissKey(active, top), { initialProps: { active: true } });
    pressEscape();
    expect(top).toHaveBeenCalledTimes(1);
    expect(below).not.toHaveBeenCalled();
    second.rerender({ active: false });
    pressEscape();
    expect(below).toHaveBeenCalledTimes(1);
    expect(top).toHaveBeenCalledTimes(1);
    first.unmount();
    second.unmount();
    pressEscape();
    expect(below).toHaveBeenCalledTimes(1);
  });
} else {
  it('Android/iOS: the back button calls the handler and goes no further while active', () => {
    const add = jest.spyOn(BackHandler, 'addEventListener');
    const onDismiss = jest.fn();
    const hook = renderHook(({ active }: { active: boolean }) => useDismissKey(active, onDismiss), { initialProps: { active: false } });
    expect(add).not.toHaveBeenCalled();
    hook.rerender({ active: true });
    const listener = add.mock.calls[0][1] as () => boolean;
    expect(listener()).toBe(true);
    expect(onDismiss).toHaveBeenCalledTimes(1);
    hook.unmount();
  });
}
