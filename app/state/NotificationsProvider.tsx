import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';

import { notificationSocketUrl, socketProtocols } from '../config';
import { useErrorToast } from '../hooks/useErrorToast';
import { errorMessage } from '../services/api/client';
import { invalidateMoneyQueries, queryFamilies, queryKeys } from '../services/api/keys';
import { subscribeAppLifecycle } from '../services/appLifecycle';
import { notificationsApi } from '../services/api/notifications';
import type { NotificationFilter, ServerNotification } from '../services/api/types';
import { openNotificationSocket, type NotificationSocketOptions } from '../services/notificationSocket';
import {
  addPush,
  allNotifications,
  countNew,
  filteredNotifications,
  fromPush,
  fromServer,
  markListRead,
  panelNotifications,
  type ClientNotification,
} from './notifications';
import { sessionStore, useSession } from './session';
import { toast } from './toast';
import { t } from '../i18n';

export interface NotificationCenter {
  /** Pushed first, then stored. */
  items: ClientNotification[];
  /** The header panel's first 5. */
  panelItems: ClientNotification[];
  /** The /notifications screen's tab. */
  filter: NotificationFilter;
  /** Items of the active filter (the /notifications screen). */
  filteredItems: ClientNotification[];
  newCount: number;
  /** The live connection: 'off' while signed out. */
  connection: LiveConnectionState;
  loading: boolean;
  error: string | null;
  markRead: (id: number | string) => void;
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

const FETCH_FAILED = 'Failed to fetch notifications';
const fetchError = (error: unknown) => errorMessage(error, t(FETCH_FAILED));
const NO_SERVER_ITEMS: ServerNotification[] = [];

/** Live pushes belong to the session that received them. */
interface Live {
  owner: string | null;
  pushed: ClientNotification[];
  filter: NotificationFilter;
}

/**
 * Stored notifications (GET /api/user/notifications, read through the query
 * cache: no copy of them is kept here) + live pushes (/ws), the new-count and
 * mark-as-read. Active only while signed in: the socket opens after sign-in
 * and closes on sign-out, and the pushes of one session never show in the next.
 */
export function NotificationsProvider({ children, createSocket }: NotificationsProviderProps) {
  const token = useSession((s) => s.token);
  const userId = useSession((s) => s.user?.id);
  const queryClient = useQueryClient();
  const [connection, setConnection] = useState<LiveConnectionState>('off');
  const [liveState, setLive] = useState<Live>({ owner: token, pushed: [], filter: 'all' });
  // Derived, not synchronised: another session's pushes read as none.
  const live: Live = liveState.owner === token ? liveState : { owner: token, pushed: [], filter: 'all' };

  const query = useQuery({
    queryKey: queryKeys.notifications('all'),
    queryFn: () => notificationsApi.list('all'),
    enabled: !!token,
  });
  useErrorToast(query.error, query.errorUpdatedAt, fetchError);

  const serverItems = Array.isArray(query.data) ? query.data : NO_SERVER_ITEMS;
  const lists = useMemo(() => ({ stored: serverItems.map(fromServer), pushed: live.pushed }), [serverItems, live.pushed]);

  const updateLive = useCallback(
    (change: (live: Live) => Live) =>
      setLive((prev) => change(prev.owner === token ? prev : { owner: token, pushed: [], filter: 'all' })),
    [token],
  );

  // The live connection, while signed in.
  useEffect(() => {
    if (!token || userId === undefined || userId === null) return;
    setConnection('connecting');
    // The server may have missed events (resync), or the app was away: refetch what a push would have changed.
    const resync = () => {
      void queryClient.invalidateQueries({ queryKey: queryFamilies.notifications });
      void invalidateMoneyQueries(queryClient);
    };
    const socket = openNotificationSocket({
      url: notificationSocketUrl(userId),
      protocols: socketProtocols(token),
      createSocket,
      // 4401: this session was signed out elsewhere, expired or deactivated: sign out here at once.
      onSessionEnded: () => void sessionStore.signOut(),
      onStatus: setConnection,
      onResync: resync,
      onNotification: (push) => {
        updateLive((l) => ({ ...l, pushed: addPush(l.pushed, fromPush(push)) }));
        toast.success(push.message);
        // A notification follows a change of money (received, a request answered, a scheduled run): refetch what it touched.
        void invalidateMoneyQueries(queryClient);
      },
    });
    // Backgrounded: the socket pauses. Back in front (or online again): it
    // reconnects with fresh retries, and the notifications are fetched again.
    const unsubscribe = subscribeAppLifecycle({
      onBackground: () => socket.pause(),
      onForeground: () => {
        socket.resume();
        void queryClient.invalidateQueries({ queryKey: queryFamilies.notifications });
      },
    });
    return () => {
      unsubscribe();
      socket.close();
      setConnection('off');
    };
  }, [token, userId, createSocket, updateLive, queryClient]);

  const markRead = useCallback(
    (id: number | string) => {
      const item = allNotifications(lists).find((n) => String(n.id) === String(id));
      if (!item || !item.isNew) return;
      updateLive((l) => ({ ...l, pushed: markListRead(l.pushed, (n) => n.isNew, (n) => ({ ...n, isNew: false }), id) }));
      queryClient.setQueryData<ServerNotification[]>(queryKeys.notifications('all'), (list) =>
        list ? markListRead(list, (n) => n.is_new, (n) => ({ ...n, is_new: false }), id) : list,
      );
      if (typeof id === 'number') {
        notificationsApi.markRead(id).catch(() => {
          // The server keeps it unread; the next fetch shows it as new again.
        });
      }
    },
    [lists, updateLive, queryClient],
  );

  const setFilter = useCallback((filter: NotificationFilter) => updateLive((l) => ({ ...l, filter })), [updateLive]);
  const { refetch } = query;

  const value = useMemo<NotificationCenter>(
    () => ({
      items: allNotifications(lists),
      panelItems: panelNotifications(lists),
      filter: live.filter,
      filteredItems: filteredNotifications(lists, live.filter),
      newCount: countNew(lists),
      connection,
      loading: query.isFetching,
      error: query.isError ? fetchError(query.error) : null,
      markRead,
      setFilter,
      refetch: () => void refetch(),
    }),
    [lists, live.filter, connection, query.isFetching, query.isError, query.error, markRead, setFilter, refetch],
  );

  return <NotificationContext.Provider value={value}>{children}</NotificationContext.Provider>;
}

export function useNotificationCenter(): NotificationCenter {
  const ctx = useContext(NotificationContext);
  if (!ctx) throw new Error('useNotificationCenter must be used inside <NotificationsProvider>');
  return ctx;
}
