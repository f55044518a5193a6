import type { NotificationFilter, PushedNotification, ServerNotification } from '../services/api/types';
import { localId } from '../utils/format';

/** The client form of a notification (spec §3). */
export interface ClientNotification {
  id: number | string;
  message: string;
  isNew: boolean;
  createdAt: string;
  userId?: number;
}

export type NotificationCategory = 'request' | 'alert';

/**
 * Categories derive from the message text: containing 'request' means request;
 * containing 'expired' or 'declined' means alert. A message can be both
 * ('Your request ... was declined').
 */
export function notificationCategories(message: string): NotificationCategory[] {
  const text = message.toLowerCase();
  const result: NotificationCategory[] = [];
  if (text.includes('request')) result.push('request');
  if (text.includes('expired') || text.includes('declined')) result.push('alert');
  return result;
}

export function matchesFilter(message: string, filter: NotificationFilter): boolean {
  if (filter === 'all') return true;
  const categories = notificationCategories(message);
  return filter === 'requests' ? categories.includes('request') : categories.includes('alert');
}

export function fromServer(n: ServerNotification): ClientNotification {
  return {
    id: n.id ?? localId('notification'),
    message: n.message ?? '',
    isNew: n.is_new !== false,
    createdAt: n.created_at ?? new Date().toISOString(),
  };
}

export function fromPush(n: PushedNotification, now: Date = new Date()): ClientNotification {
  return {
    id: n.id ?? localId('notification'),
    message: n.message ?? '',
    isNew: true,
    createdAt: n.created_at ?? now.toISOString(),
    userId: n.user_id,
  };
}

export interface NotificationState {
  stored: ClientNotification[];
  pushed: ClientNotification[];
  loading: boolean;
  error: string | null;
  filter: NotificationFilter;
  newCount: number;
}

export const initialNotificationState: NotificationState = {
  stored: [],
  pushed: [],
  loading: false,
  error: null,
  filter: 'all',
  newCount: 0,
};

export type NotificationAction =
  | { type: 'fetchStart' }
  | { type: 'fetchSuccess'; items: ClientNotification[] }
  | { type: 'fetchFailure'; error: string }
  | { type: 'push'; item: ClientNotification }
  | { type: 'markRead'; id: number | string }
  | { type: 'markAllRead' }
  | { type: 'setFilter'; filter: NotificationFilter }
  | { type: 'reset' };

const sameId = (a: number | string, b: number | string) => String(a) === String(b);

/** Stored items that are not also in the pushed list (a push is stored too). */
function storedOnly(stored: ClientNotification[], pushed: ClientNotification[]) {
  return stored.filter((s) => !pushed.some((p) => sameId(p.id, s.id)));
}

const unread = (list: ClientNotification[]) => list.filter((n) => n.isNew).length;

export function notificationReducer(state: NotificationState, action: NotificationAction): NotificationState {
  switch (action.type) {
    case 'fetchStart':
      return { ...state, loading: true, error: null };
    case 'fetchSuccess': {
      // A pushed item the user already read here stays read.
      const stored = action.items.map((s) => {
        const p = state.pushed.find((x) => sameId(x.id, s.id));
        return p && !p.isNew ? { ...s, isNew: false } : s;
      });
      // Count after fetching = unread stored + unread pushed.
      return {
        ...state,
        stored,
        loading: false,
        error: null,
        newCount: unread(storedOnly(stored, state.pushed)) + unread(state.pushed),
      };
    }
    case 'fetchFailure':
      return { ...state, loading: false, error: action.error };
    case 'push':
      // Added at the front, marked new, count + 1.
      return {
        ...state,
        pushed: [{ ...action.item, isNew: true }, ...state.pushed.filter((p) => !sameId(p.id, action.item.id))],
        newCount: state.newCount + 1,
      };
    case 'markRead': {
      const wasNew = allNotifications(state).some((n) => sameId(n.id, action.id) && n.isNew);
      if (!wasNew) return state;
      const read = (n: ClientNotification) => (sameId(n.id, action.id) ? { ...n, isNew: false } : n);
      return {
        ...state,
        stored: state.stored.map(read),
        pushed: state.pushed.map(read),
        newCount: Math.max(0, state.newCount - 1),
      };
    }
    case 'markAllRead': {
      const read = (n: ClientNotification) => (n.isNew ? { ...n, isNew: false } : n);
      return { ...state, stored: state.stored.map(read), pushed: state.pushed.map(read), newCount: 0 };
    }
    case 'setFilter':
      return { ...state, filter: action.filter };
    case 'reset':
      return initialNotificationState;
    default:
      return state;
  }
}

/** Pushed first, then stored (without duplicates). */
export function allNotifications(state: Pick<NotificationState, 'stored' | 'pushed'>): ClientNotification[] {
  return [...state.pushed, ...storedOnly(state.stored, state.pushed)];
}

/** The header panel shows the first 5. */
export const PANEL_LIMIT = 5;
export function panelNotifications(state: Pick<NotificationState, 'stored' | 'pushed'>): ClientNotification[] {
  return allNotifications(state).slice(0, PANEL_LIMIT);
}

export function filteredNotifications(state: NotificationState): ClientNotification[] {
  return allNotifications(state).filter((n) => matchesFilter(n.message, state.filter));
}
