import { api } from './client';
import type { NotificationFilter, ServerNotification } from './types';

export const notificationsApi = {
  list: (filter: NotificationFilter = 'all') =>
    api.get<ServerNotification[]>('/user/notifications', filter === 'all' ? undefined : { filter }),
  markRead: (id: number | string) => api.put<void>(`/user/notifications/${id}/read`),
};
