import { client } from './typed';
import type { NotificationFilter } from './types';

export const notificationsApi = {
  list: (filter: NotificationFilter = 'all') =>
    client.GET('/api/user/notifications', { params: { query: filter === 'all' ? undefined : { filter } } }),
  markRead: (id: number | string) => client.PUT('/api/user/notifications/{id}/read', { params: { path: { id: Number(id) } } }),
};
