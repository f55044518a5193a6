import { TOAST_LIMIT, toast, toastStore } from '../state/toast';

describe('toasts', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    toast.dismiss();
    jest.useRealTimers();
  });

  const messages = () => toastStore.getState().map((t) => t.message);

  it('success lasts 2 s, error and plain 4 s, loading until dismissed', () => {
    toast.success('ok');
    toast.error('bad');
    toast('plain');
    const loading = toast.loading('wait');
    expect(messages()).toEqual(['wait', 'plain', 'bad', 'ok']);
    jest.advanceTimersByTime(1999);
    expect(messages()).toContain('ok');
    jest.advanceTimersByTime(1);
    expect(messages()).toEqual(['wait', 'plain', 'bad']);
    jest.advanceTimersByTime(2000);
    expect(messages()).toEqual(['wait']);
    jest.advanceTimersByTime(60_000);
    expect(messages()).toEqual(['wait']);
    toast.dismiss(loading);
    expect(messages()).toEqual([]);
  });

  it('keeps at most 20, dropping the oldest', () => {
    for (let i = 0; i < 25; i++) toast(`t${i}`);
    expect(TOAST_LIMIT).toBe(20);
    expect(messages()).toHaveLength(20);
    expect(messages()[0]).toBe('t24');
    expect(messages()).not.toContain('t4');
    expect(messages()).toContain('t5');
  });

  it('reusing an id replaces the toast (loading -> success)', () => {
    const id = toast.loading('Saving...');
    toast.success('Saved', { id });
    expect(toastStore.getState()).toHaveLength(1);
    expect(toastStore.getState()[0]).toMatchObject({ type: 'success', message: 'Saved' });
    jest.advanceTimersByTime(2000);
    expect(messages()).toEqual([]);
  });
});
