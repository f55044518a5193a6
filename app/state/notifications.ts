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

/**
 * What the notification center shows: the stored list (the server's, through
 * the query cache) and the live pushes received since sign-in (kept in the
 * provider). Everything else (count, panel, filter) is derived from these two.
 */
export interface NotificationLists {
  stored: ClientNotification[];
  pushed: ClientNotification[];
}

const sameId = (a: number | string, b: number | string) => String(a) === String(b);

/** Stored items that are not also in the pushed list (a push is stored too). */
function storedOnly(stored: ClientNotification[], pushed: ClientNotification[]) {
  return stored.filter((s) => !pushed.some((p) => sameId(p.id, s.id)));
}

/** Pushed first, then stored (without duplicates). */
export function allNotifications({ stored, pushed }: NotificationLists): ClientNotification[] {
  return [...pushed, ...storedOnly(stored, pushed)];
}

/**
 * The new-count: unread stored plus unread pushed, each notification once.
 * So a push adds one, a click on an unread one takes one away, and after a
 * fetch the count is what the server says plus what arrived live (spec §4).
 */
export function countNew(lists: NotificationLists): number {
  return allNotifications(lists).filter((n) => n.isNew).length;
}

/** A push goes to the front, marked new (a repeated id replaces the earlier copy). */
export function addPush(pushed: ClientNotification[], item: ClientNotification): ClientNotification[] {
  return [{ ...item, isNew: true }, ...pushed.filter((p) => !sameId(p.id, item.id))];
}

/** The list with the unread item `id` marked read; the same array when nothing changes. */
export function markListRead<T extends { id: number | string }>(list: T[], isNew: (item: T) => boolean, read: (item: T) => T, id: number | string): T[] {
  const hit = (n: T) => isNew(n) && sameId(n.id, id);
  return list.some(hit) ? list.map((n) => (hit(n) ? read(n) : n)) : list;
}

/** The header panel shows the first 5. */
export const PANEL_LIMIT = 5;
export function panelNotifications(lists: NotificationLists): ClientNotification[] {
  return allNotifications(lists).slice(0, PANEL_LIMIT);
}

export function filteredNotifications(lists: NotificationLists, filter: NotificationFilter): ClientNotification[] {
  return allNotifications(lists).filter((n) => matchesFilter(n.message, filter));
}
