import { openNotificationSocket, parseSocketMessage } from '../services/notificationSocket';
import { socketProtocols } from '../services/socketProtocols';
import {
  addPush,
  allNotifications,
  countNew,
  filteredNotifications,
  fromPush,
  fromServer,
  markListRead,
  matchesFilter,
  notificationCategories,
  panelNotifications,
  type ClientNotification,
  type NotificationLists,
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

describe('notification state (derived from the stored list and the live pushes)', () => {
  const lists = (stored: ClientNotification[], pushed: ClientNotification[] = []): NotificationLists => ({ stored, pushed });
  const push = (pushed: ClientNotification[], id: number, message = `push ${id}`) => addPush(pushed, fromPush({ id, message }));
  const read = (list: ClientNotification[], id: number) => markListRead(list, (n) => n.isNew, (n) => ({ ...n, isNew: false }), id);

  it('after fetching, the count is the unread stored ones', () => {
    expect(countNew(lists([stored(1, true), stored(2, false), stored(3, true)]))).toBe(2);
  });

  it('a push goes to the front, marked new, count + 1', () => {
    const s = [stored(1, true), stored(2, false)];
    const pushed = addPush([], fromPush({ id: 10, message: 'You received $1.00 from account 9', user_id: 3 }));
    expect(countNew(lists(s, pushed))).toBe(countNew(lists(s)) + 1);
    expect(allNotifications(lists(s, pushed)).map((n) => n.id)).toEqual([10, 1, 2]);
    expect(allNotifications(lists(s, pushed))[0]).toMatchObject({ isNew: true, userId: 3 });
  });

  it('after fetching again, count = unread stored + unread pushed (a push is also stored: counted once)', () => {
    const pushed = push(push([], 10, 'a'), 11, 'b');
    expect(countNew(lists([stored(1, true)], pushed))).toBe(3);
    const refetched = [stored(11, true, 'b'), stored(10, true, 'a'), stored(1, true), stored(0, false)];
    expect(countNew(lists(refetched, pushed))).toBe(3);
    expect(allNotifications(lists(refetched, pushed)).map((n) => n.id)).toEqual([11, 10, 1, 0]);
  });

  it('clicking marks read and the count drops by one, once', () => {
    let s = [stored(1, true), stored(2, true)];
    s = read(s, 1);
    expect(countNew(lists(s))).toBe(1);
    expect(s.find((n) => n.id === 1)?.isNew).toBe(false);
    // Already read: the same list.
    expect(read(s, 1)).toBe(s);
    let pushed = push([], 5);
    expect(countNew(lists(s, pushed))).toBe(2);
    pushed = read(pushed, 5);
    expect(countNew(lists(s, pushed))).toBe(1);
  });

  it('a pushed item read here stays read when the stored list comes back unread', () => {
    const pushed = read(push([], 5, 'x'), 5);
    expect(countNew(lists([stored(5, true, 'x')], pushed))).toBe(0);
  });

  it('the panel shows the first 5, pushed first', () => {
    const pushed = push(push([], 20, 'p1'), 21, 'p2');
    expect(panelNotifications(lists([1, 2, 3, 4].map((i) => stored(i, false)), pushed)).map((n) => n.id)).toEqual([21, 20, 1, 2, 3]);
  });

  it('filters by tab', () => {
    const all = lists([stored(1, true, 'Bob requested $5.00'), stored(2, true, 'Card expired'), stored(3, false, 'Welcome')]);
    expect(filteredNotifications(all, 'requests').map((n) => n.id)).toEqual([1]);
    expect(filteredNotifications(all, 'alerts').map((n) => n.id)).toEqual([2]);
    expect(filteredNotifications(all, 'all')).toHaveLength(3);
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
  constructor(
    public url: string,
    public protocols?: string[],
  ) {
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

  const open = (onNotification = jest.fn(), onResync = jest.fn(), onSessionEnded = jest.fn()) =>
    openNotificationSocket({
      url: 'ws://host/ws?user_id=1',
      protocols: socketProtocols('t'),
      onNotification,
      onResync,
      createSocket: (u, p) => new FakeSocket(u, p),
      onSessionEnded,
    });

  it('a {"type":"resync"} message asks for a refetch, and is not a notification', () => {
    const onNotification = jest.fn();
    const onResync = jest.fn();
    open(onNotification, onResync);
    FakeSocket.all[0].open();
    FakeSocket.all[0].send(JSON.stringify({ type: 'resync' }));
    expect(onResync).toHaveBeenCalledTimes(1);
    expect(onNotification).not.toHaveBeenCalled();
    expect(parseSocketMessage('{"type":"resync"}')).toEqual({ type: 'resync' });
  });

  it('pause() closes without retrying; resume() reconnects at once with the retries restored', () => {
    const socket = open();
    FakeSocket.all[0].drop();
    for (let i = 1; i <= 5; i++) {
      jest.advanceTimersByTime(3000);
      FakeSocket.all[i].drop();
    }
    // Gave up after 5 retries (as a phone asleep in the background would).
    jest.advanceTimersByTime(60_000);
    expect(FakeSocket.all).toHaveLength(6);
    expect(socket.retries).toBe(5);
    socket.resume();
    expect(FakeSocket.all).toHaveLength(7);
    expect(socket.retries).toBe(0);
    FakeSocket.all[6].open();

    socket.pause();
    expect(FakeSocket.all[6].closed).toBe(true);
    jest.advanceTimersByTime(60_000);
    expect(FakeSocket.all).toHaveLength(7);
    socket.resume();
    expect(FakeSocket.all).toHaveLength(8);
    // Already connecting: a second resume opens nothing more.
    socket.resume();
    expect(FakeSocket.all).toHaveLength(8);
    // Retries work again after a resume.
    FakeSocket.all[7].drop();
    jest.advanceTimersByTime(3000);
    expect(FakeSocket.all).toHaveLength(9);
  });

  it('delivers parsed pushes and ignores junk', () => {
    const onNotification = jest.fn();
    open(onNotification);
    const s = FakeSocket.all[0];
    expect(s.url).toBe('ws://host/ws?user_id=1');
    expect(s.protocols).toEqual(['meridian', 'meridian.bearer.t']);
    s.open();
    s.send(JSON.stringify({ id: 1, message: 'You received $5.00 from account 1', user_id: 1, created_at: '2026-11-21T10:00:00Z' }));
    s.send('not json');
    s.send(JSON.stringify({ nope: true }));
    expect(onNotification).toHaveBeenCalledTimes(1);
    expect(onNotification.mock.calls[0][0]).toMatchObject({ id: 1, message: 'You received $5.00 from account 1' });
    expect(parseSocketMessage(42)).toBeNull();
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

  it('a close with 4401 (the session ended) reports it and never retries', () => {
    const onSessionEnded = jest.fn();
    const socket = open(jest.fn(), jest.fn(), onSessionEnded);
    FakeSocket.all[0].open();
    FakeSocket.all[0].onclose?.({ code: 4401 });
    expect(onSessionEnded).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(60_000);
    expect(FakeSocket.all).toHaveLength(1);
    // Nor does coming back to the foreground reopen it.
    socket.resume();
    expect(FakeSocket.all).toHaveLength(1);
  });

  it('an ordinary close (1006) retries and is no sign-out', () => {
    const onSessionEnded = jest.fn();
    open(jest.fn(), jest.fn(), onSessionEnded);
    FakeSocket.all[0].onclose?.({ code: 1006 });
    jest.advanceTimersByTime(3000);
    expect(FakeSocket.all).toHaveLength(2);
    expect(onSessionEnded).not.toHaveBeenCalled();
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
