import { openNotificationSocket, parsePush } from '../services/notificationSocket';
import {
  allNotifications,
  fromPush,
  fromServer,
  initialNotificationState,
  matchesFilter,
  notificationCategories,
  notificationReducer,
  panelNotifications,
  type NotificationState,
} from '../state/notifications';

const stored = (id: number, isNew: boolean, message = `stored ${id}`) =>
  fromServer({ id, message, is_new: isNew, created_at: '2026-11-21T10:00:00Z' });

describe('notification categories', () => {
  it("'request' means request; 'expired' or 'declined' means alert", () => {
    expect(notificationCategories('Bob requested $12.50 from your account 100200300')).toEqual(['request']);
    expect(notificationCategories('Your money request was declined')).toEqual(['request', 'alert']);
    expect(notificationCategories('Your request expired')).toEqual(['request', 'alert']);
    expect(notificationCategories('Card expired')).toEqual(['alert']);
    expect(notificationCategories('Transfer Declined by bank')).toEqual(['alert']);
    expect(notificationCategories('You received $12.50 from account 100200300')).toEqual([]);
  });

  it('filters by category', () => {
    expect(matchesFilter('You received $5.00 from account 1', 'all')).toBe(true);
    expect(matchesFilter('You received $5.00 from account 1', 'requests')).toBe(false);
    expect(matchesFilter('Alice requested $5.00', 'requests')).toBe(true);
    expect(matchesFilter('Alice requested $5.00', 'alerts')).toBe(false);
    expect(matchesFilter('Your request was declined', 'alerts')).toBe(true);
  });
});

describe('notification state', () => {
  const fetched = (items: ReturnType<typeof stored>[], state: NotificationState = initialNotificationState) =>
    notificationReducer(notificationReducer(state, { type: 'fetchStart' }), { type: 'fetchSuccess', items });

  it('after fetching, the count is the unread stored ones', () => {
    const s = fetched([stored(1, true), stored(2, false), stored(3, true)]);
    expect(s.newCount).toBe(2);
    expect(s.loading).toBe(false);
  });

  it('a push goes to the front, marked new, count + 1', () => {
    let s = fetched([stored(1, true), stored(2, false)]);
    s = notificationReducer(s, { type: 'push', item: fromPush({ id: 10, message: 'You received $1.00 from account 9', user_id: 3 }) });
    expect(s.newCount).toBe(2);
    expect(allNotifications(s).map((n) => n.id)).toEqual([10, 1, 2]);
    expect(allNotifications(s)[0]).toMatchObject({ isNew: true, userId: 3 });
  });

  it('after fetching again, count = unread stored + unread pushed (a push is also stored: counted once)', () => {
    let s = fetched([stored(1, true)]);
    s = notificationReducer(s, { type: 'push', item: fromPush({ id: 10, message: 'a' }) });
    s = notificationReducer(s, { type: 'push', item: fromPush({ id: 11, message: 'b' }) });
    expect(s.newCount).toBe(3);
    s = fetched([stored(11, true, 'b'), stored(10, true, 'a'), stored(1, true), stored(0, false)], s);
    expect(s.newCount).toBe(3);
    expect(allNotifications(s).map((n) => n.id)).toEqual([11, 10, 1, 0]);
  });

  it('clicking marks read and the count drops by one, once', () => {
    let s = fetched([stored(1, true), stored(2, true)]);
    s = notificationReducer(s, { type: 'markRead', id: 1 });
    expect(s.newCount).toBe(1);
    expect(allNotifications(s).find((n) => n.id === 1)?.isNew).toBe(false);
    // Already read: nothing changes.
    expect(notificationReducer(s, { type: 'markRead', id: 1 })).toBe(s);
    s = notificationReducer(s, { type: 'push', item: fromPush({ id: 5, message: 'x' }) });
    s = notificationReducer(s, { type: 'markRead', id: 5 });
    expect(s.newCount).toBe(1);
  });

  it('a pushed item read here stays read when the stored list comes back', () => {
    let s = notificationReducer(initialNotificationState, { type: 'push', item: fromPush({ id: 5, message: 'x' }) });
    s = notificationReducer(s, { type: 'markRead', id: 5 });
    s = fetched([stored(5, true, 'x')], s);
    expect(s.newCount).toBe(0);
  });

  it('mark all read and reset', () => {
    let s = fetched([stored(1, true), stored(2, true)]);
    s = notificationReducer(s, { type: 'markAllRead' });
    expect(s.newCount).toBe(0);
    expect(allNotifications(s).every((n) => !n.isNew)).toBe(true);
    expect(notificationReducer(s, { type: 'reset' })).toEqual(initialNotificationState);
  });

  it('the panel shows the first 5, pushed first', () => {
    let s = fetched([1, 2, 3, 4].map((i) => stored(i, false)));
    s = notificationReducer(s, { type: 'push', item: fromPush({ id: 20, message: 'p1' }) });
    s = notificationReducer(s, { type: 'push', item: fromPush({ id: 21, message: 'p2' }) });
    expect(panelNotifications(s).map((n) => n.id)).toEqual([21, 20, 1, 2, 3]);
  });

  it('records a failed fetch', () => {
    const s = notificationReducer(notificationReducer(initialNotificationState, { type: 'fetchStart' }), {
      type: 'fetchFailure',
      error: 'Failed to fetch notifications',
    });
    expect(s).toMatchObject({ loading: false, error: 'Failed to fetch notifications' });
  });

  it('gives pushes without an id a local one', () => {
    const a = fromPush({ message: 'no id' });
    const b = fromPush({ message: 'no id' });
    expect(a.id).not.toEqual(b.id);
    expect(a.isNew).toBe(true);
  });
});

class FakeSocket {
  static all: FakeSocket[] = [];
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  closed = false;
  constructor(public url: string) {
    FakeSocket.all.push(this);
  }
  close() {
    this.closed = true;
  }
  open() {
    this.onopen?.({});
  }
  drop() {
    this.onclose?.({});
  }
  send(data: unknown) {
    this.onmessage?.({ data });
  }
}

describe('live notification socket', () => {
  beforeEach(() => {
    jest.useFakeTimers();
    FakeSocket.all = [];
  });
  afterEach(() => jest.useRealTimers());

  const open = (onNotification = jest.fn()) =>
    openNotificationSocket({
      url: 'ws://host/ws?user_id=1&token=t',
      onNotification,
      createSocket: (u) => new FakeSocket(u),
    });

  it('delivers parsed pushes and ignores junk', () => {
    const onNotification = jest.fn();
    open(onNotification);
    const s = FakeSocket.all[0];
    expect(s.url).toBe('ws://host/ws?user_id=1&token=t');
    s.open();
    s.send(JSON.stringify({ id: 1, message: 'You received $5.00 from account 1', user_id: 1, created_at: '2026-11-21T10:00:00Z' }));
    s.send('not json');
    s.send(JSON.stringify({ nope: true }));
    expect(onNotification).toHaveBeenCalledTimes(1);
    expect(onNotification.mock.calls[0][0]).toMatchObject({ id: 1, message: 'You received $5.00 from account 1' });
    expect(parsePush(42)).toBeNull();
  });

  it('retries up to 5 times, 3000 ms apart, then gives up', () => {
    const socket = open();
    FakeSocket.all[0].drop();
    for (let attempt = 1; attempt <= 5; attempt++) {
      jest.advanceTimersByTime(2999);
      expect(FakeSocket.all).toHaveLength(attempt);
      jest.advanceTimersByTime(1);
      expect(FakeSocket.all).toHaveLength(attempt + 1);
      FakeSocket.all[attempt].drop();
    }
    expect(socket.retries).toBe(5);
    jest.advanceTimersByTime(60_000);
    expect(FakeSocket.all).toHaveLength(6);
  });

  it('a successful open resets the retry counter', () => {
    const socket = open();
    FakeSocket.all[0].drop();
    jest.advanceTimersByTime(3000);
    FakeSocket.all[1].drop();
    jest.advanceTimersByTime(3000);
    expect(socket.retries).toBe(2);
    FakeSocket.all[2].open();
    expect(socket.retries).toBe(0);
    // Five more retries are allowed again.
    for (let i = 0; i < 5; i++) {
      FakeSocket.all[FakeSocket.all.length - 1].drop();
      jest.advanceTimersByTime(3000);
    }
    expect(FakeSocket.all).toHaveLength(8);
    FakeSocket.all[7].drop();
    jest.advanceTimersByTime(30_000);
    expect(FakeSocket.all).toHaveLength(8);
  });

  it('close() closes the socket and stops retrying', () => {
    const socket = open();
    FakeSocket.all[0].open();
    socket.close();
    expect(FakeSocket.all[0].closed).toBe(true);
    FakeSocket.all[0].drop();
    jest.advanceTimersByTime(30_000);
    expect(FakeSocket.all).toHaveLength(1);
  });
});
