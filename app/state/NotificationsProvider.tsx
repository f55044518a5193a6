import { useQuery } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useReducer, useState, type ReactNode } from 'react';

import { notificationSocketUrl } from '../config';
import { ApiError, errorMessage } from '../services/api/client';
import { queryKeys } from '../services/api/keys';
import { notificationsApi } from '../services/api/notifications';
import type { NotificationFilter } from '../services/api/types';
import { openNotificationSocket, type NotificationSocketOptions } from '../services/notificationSocket';
import {
  allNotifications,
  filteredNotifications,
  fromPush,
  fromServer,
  initialNotificationState,
  notificationReducer,
  panelNotifications,
  type ClientNotification,
  type NotificationState,
} from './notifications';
import { useSession } from './session';
import { toast } from './toast';

export interface NotificationCenter {
  state: NotificationState;
  /** Pushed first, then stored. */
  items: ClientNotification[];
  /** The header panel's first 5. */
  panelItems: ClientNotification[];
  /** Items of the active filter (the /notifications screen). */
  filteredItems: ClientNotification[];
  newCount: number;
  /** The live connection: 'off' while signed out. */
  connection: LiveConnectionState;
  loading: boolean;
  error: string | null;
  markRead: (id: number | string) => void;
  markAllRead: () => void;
  setFilter: (filter: NotificationFilter) => void;
  refetch: () => void;
}

export type LiveConnectionState = 'off' | 'connecting' | 'open' | 'closed' | 'retrying' | 'gave-up';

const NotificationContext = createContext<NotificationCenter | null>(null);

export interface NotificationsProviderProps {
  children: ReactNode;
  /** Tests pass a fake socket factory. */
  createSocket?: NotificationSocketOptions['createSocket'];
}

/**
 * Stored notifications (GET /api/user/notifications) + live pushes (/ws),
 * the new-count and mark-as-read. Active only while signed in: the socket
 * opens after sign-in and closes on sign-out.
 */
export function NotificationsProvider({ children, createSocket }: NotificationsProviderProps) {
  const token = useSession((s) => s.token);
  const userId = useSession((s) => s.user?.id);
  const [state, dispatch] = useReducer(notificationReducer, initialNotificationState);
  const [connection, setConnection] = useState<LiveConnectionState>('off');

  const query = useQuery({
    queryKey: queryKeys.notifications('all'),
    queryFn: () => notificationsApi.list('all'),
    enabled: !!token,
  });

  useEffect(() => {
    if (query.isFetching) dispatch({ type: 'fetchStart' });
  }, [query.isFetching]);

  useEffect(() => {
    if (query.data && query.isSuccess) {
      dispatch({ type: 'fetchSuccess', items: (Array.isArray(query.data) ? query.data : []).map(fromServer) });
    }
  }, [query.data, query.isSuccess, query.dataUpdatedAt]);

  useEffect(() => {
    if (query.isError && query.error) {
      const message = errorMessage(query.error, 'Failed to fetch notifications');
      dispatch({ type: 'fetchFailure', error: message });
      if (!(query.error instanceof ApiError && query.error.status === 401)) toast.error(message);
    }
  }, [query.isError, query.error, query.errorUpdatedAt]);

  // Signed out: forget everything.
  useEffect(() => {
    if (!token) dispatch({ type: 'reset' });
  }, [token]);

  // The live connection, while signed in.
  useEffect(() => {
    if (!token || userId === undefined || userId === null) return;
    setConnection('connecting');
    const socket = openNotificationSocket({
      url: notificationSocketUrl(userId, token),
      createSocket,
      onStatus: setConnection,
      onNotification: (push) => {
        dispatch({ type: 'push', item: fromPush(push) });
        toast.success(push.message);
      },
    });
    return () => {
      socket.close();
      setConnection('off');
    };
  }, [token, userId, createSocket]);

  const markRead = useCallback(
    (id: number | string) => {
      const item = allNotifications(state).find((n) => String(n.id) === String(id));
      if (!item || !item.isNew) return;
      dispatch({ type: 'markRead', id });
      if (typeof id === 'number') {
        notificationsApi.markRead(id).catch(() => {
          // The server keeps it unread; the next fetch shows it as new again.
        });
      }
    },
    [state],
  );

  const markAllRead = useCallback(() => {
    dispatch({ type: 'markAllRead' });
    notificationsApi.markAllRead().catch(() => undefined);
  }, []);

  const setFilter = useCallback((filter: NotificationFilter) => dispatch({ type: 'setFilter', filter }), []);
  const { refetch } = query;

  const value = useMemo<NotificationCenter>(
    () => ({
      state,
      items: allNotifications(state),
      panelItems: panelNotifications(state),
      filteredItems: filteredNotifications(state),
      newCount: state.newCount,
      connection,
      loading: state.loading,
      error: state.error,
      markRead,
      markAllRead,
      setFilter,
      refetch: () => void refetch(),
    }),
    [state, connection, markRead, markAllRead, setFilter, refetch],
  );

  return <NotificationContext.Provider value={value}>{children}</NotificationContext.Provider>;
}

export function useNotificationCenter(): NotificationCenter {
  const ctx = useContext(NotificationContext);
  if (!ctx) throw new Error('useNotificationCenter must be used inside <NotificationsProvider>');
  return ctx;
}
