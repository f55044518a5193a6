import {
  createNavigatorFactory,
  TabRouter,
  useNavigation,
  useNavigationBuilder,
  type DefaultNavigatorOptions,
  type NavigationProp,
  type ParamListBase,
  type TabActionHelpers,
  type TabNavigationState,
  type TabRouterOptions,
} from '@react-navigation/native';
import type { ComponentType, ReactNode } from 'react';
import { useEffect, useRef } from 'react';

import { ErrorBoundary } from '../components/ErrorBoundary';
import { Loading } from '../components/Loading';
import { Shell } from '../components/shell/Shell';
import { signOut, useMe } from '../services/api/auth';
import { sessionStore, useSession } from '../state/session';
import { toast } from '../state/toast';
import { twoFactorGate, useTwoFactorGate } from '../state/twoFactorGate';
import { roleMayOpen, type AppParamList, type AppRouteName, type RootParamList } from './routes';
import { t } from '../i18n';

export interface ShellScreenOptions {
  title?: string;
  /**
   * The page is a long list that scrolls itself (a virtualized table on
   * Android/iOS), so the shell does not wrap it in its scroll view.
   */
  listScreen?: boolean;
}

type ShellNavigatorProps = DefaultNavigatorOptions<
  ParamListBase,
  string | undefined,
  TabNavigationState<ParamListBase>,
  ShellScreenOptions,
  Record<string, never>,
  unknown
> &
  TabRouterOptions;

/**
 * The signed-in area: a tab-like router (one page shown at a time, browser
 * history on the web) rendered inside the Shell. Guards live here, so pages
 * need none of their own:
 * - signed out: remember the page, go to /auth;
 * - a page not for the role (admin pages for a User, customer pages for an
 *   Admin): 'Unauthorized access', go to /;
 * - an administrator the server refuses until two-factor sign-in is on
 *   (require_2fa_for_admins, 403 two_factor_required): the server's sentence,
 *   go to /security.
 */
function ShellNavigator({ id, initialRouteName, children, screenOptions, layout, screenListeners, screenLayout }: ShellNavigatorProps) {
  const { state, descriptors, navigation, render } = useNavigationBuilder<
    TabNavigationState<ParamListBase>,
    TabRouterOptions,
    TabActionHelpers<ParamListBase>,
    ShellScreenOptions,
    Record<string, never>
  >(TabRouter, { id, initialRouteName, children, screenOptions, layout, screenListeners, screenLayout, backBehavior: 'history' });

  const rootNavigation = useNavigation<NavigationProp<RootParamList>>();
  const token = useSession((s) => s.token);
  const user = useSession((s) => s.user);
  const hydrated = useSession((s) => s.hydrated);
  const route = state.routes[state.index];
  const routeName = route.name as AppRouteName;
  const needsUser = !!token && !user;
  const me = useMe(needsUser);

  // A token without its stored user: fetch /api/auth/me.
  useEffect(() => {
    if (needsUser && me.data) void sessionStore.setUser(me.data);
  }, [needsUser, me.data]);

  // Login guard.
  useEffect(() => {
    if (!hydrated || token) return;
    // Kept for the next sign-in (of the same user); ignored after Logout.
    sessionStore.rememberRoute({ name: routeName, params: route.params as AppParamList[AppRouteName] });
    rootNavigation.reset({ index: 0, routes: [{ name: 'Auth' }] });
  }, [hydrated, token, routeName, route.params, rootNavigation]);

  // Role guard: admin pages refuse a User, customer pages refuse an Admin.
  const forbidden = !!user && !roleMayOpen(routeName, user.role);
  const warned = useRef<string | null>(null);
  useEffect(() => {
    if (!forbidden) return;
    if (warned.current !== route.key) {
      warned.current = route.key;
      toast.error(t('Unauthorized access'));
    }
    navigation.navigate('Dashboard');
  }, [forbidden, route.key, navigation]);

  // Two-factor gate: each refusal sends the admin (back) to Security.
  const gateRaisedAt = useTwoFactorGate((s) => s.raisedAt);
  const handledGate = useRef(gateRaisedAt);
  useEffect(() => {
    if (gateRaisedAt === handledGate.current) return;
    handledGate.current = gateRaisedAt;
    const { message } = twoFactorGate.getState();
    if (!message || !token) return;
    toast.error(message, { id: 'two-factor-required' });
    if (routeName !== 'Security') navigation.navigate('Security');
  }, [gateRaisedAt, routeName, token, navigation]);

  let content: ReactNode;
  if (!hydrated || !token || (needsUser && !me.isError) || forbidden) {
    content = <Loading testID="shell-loading" />;
  } else {
    content = (
      <ErrorBoundary resetKey={route.key} onHome={() => navigation.navigate('Dashboard')}>
        {descriptors[route.key].render()}
      </ErrorBoundary>
    );
  }

  if (!hydrated || !token) return render(<Loading testID="shell-loading" />);

  return render(
    <Shell
      pageScrollsItself={descriptors[route.key].options.listScreen === true}
      user={user}
      activeRoute={routeName}
      onNavigate={(name) => navigation.navigate(name)}
      onLogout={() => void signOut({ explicit: true })}
    >
      {content}
    </Shell>,
  );
}

interface ShellScreenProps<K extends AppRouteName> {
  name: K;
  component: ComponentType<object>;
  options?: ShellScreenOptions;
  initialParams?: Partial<NonNullable<AppParamList[K]>>;
}

interface ShellNavigatorType {
  Navigator: ComponentType<{ children: ReactNode; initialRouteName?: AppRouteName; screenOptions?: ShellScreenOptions }>;
  Screen: <K extends AppRouteName>(props: ShellScreenProps<K>) => null;
}

export const createShellNavigator = createNavigatorFactory(ShellNavigator) as () => ShellNavigatorType;
