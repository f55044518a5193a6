import { DarkTheme, DefaultTheme, NavigationContainer, type Theme } from '@react-navigation/native';
import { createNativeStackNavigator } from '@react-navigation/native-stack';
import { useMemo } from 'react';
import { Platform } from 'react-native';

import { Loading } from '../components/Loading';
import AuthScreen from '../screens/AuthScreen';
import { useTheme } from '../theme';
import { lazyScreen } from './lazyScreen';
import { linking } from './linking';
import { navigationRef } from './navigationRef';
import { routeTitle, type AppRouteName, type RootParamList } from './routes';
import { createShellNavigator } from './ShellNavigator';
import { t } from '../i18n';

const Root = createNativeStackNavigator<RootParamList>();
const ShellTabs = createShellNavigator();

// Every page but /auth loads on first use (own chunk on the web).
const screens: Record<AppRouteName, ReturnType<typeof lazyScreen>> = {
  Dashboard: lazyScreen(() => import('../screens/DashboardScreen')),
  AccountRegistration: lazyScreen(() => import('../screens/AccountRegistrationScreen')),
  TransferFunds: lazyScreen(() => import('../screens/TransferFundsScreen')),
  MoneyRequest: lazyScreen(() => import('../screens/MoneyRequestScreen')),
  TransactionHistory: lazyScreen(() => import('../screens/TransactionHistoryScreen')),
  Notifications: lazyScreen(() => import('../screens/NotificationsScreen')),
  Users: lazyScreen(() => import('../screens/UsersScreen')),
  Assign: lazyScreen(() => import('../screens/AssignScreen')),
  Logs: lazyScreen(() => import('../screens/LogsScreen')),
  Settings: lazyScreen(() => import('../screens/SettingsScreen')),
  Security: lazyScreen(() => import('../screens/SecurityScreen')),
  Exchange: lazyScreen(() => import('../screens/ExchangeScreen')),
  Rates: lazyScreen(() => import('../screens/RatesScreen')),
  Approvals: lazyScreen(() => import('../screens/ApprovalsScreen')),
  Consent: lazyScreen(() => import('../screens/ConsentScreen')),
};
// Pages that are one long list ("Load more"): virtualized on Android/iOS, they scroll themselves.
const LIST_SCREENS: ReadonlySet<AppRouteName> = new Set<AppRouteName>(['TransactionHistory', 'Logs']);
const NotFoundScreen = lazyScreen(() => import('../screens/NotFoundScreen'));

function AppArea() {
  return (
    <ShellTabs.Navigator initialRouteName="Dashboard">
      {(Object.keys(screens) as AppRouteName[]).map((name) => (
        <ShellTabs.Screen
          key={name}
          name={name}
          component={screens[name]}
          options={{ title: routeTitle(name), listScreen: LIST_SCREENS.has(name) }}
        />
      ))}
    </ShellTabs.Navigator>
  );
}

export function AppNavigator() {
  const { colors, scheme } = useTheme();
  const navTheme = useMemo<Theme>(() => {
    const base = scheme === 'dark' ? DarkTheme : DefaultTheme;
    return {
      ...base,
      colors: { ...base.colors, background: colors.background, card: colors.surface, text: colors.text, border: colors.border, primary: colors.primary },
    };
  }, [scheme, colors]);

  return (
    <NavigationContainer
      ref={navigationRef}
      linking={linking}
      theme={navTheme}
      fallback={<Loading />}
      documentTitle={{ formatter: (options, route) => t('{{page}} · Meridian Bank', { page: options?.title ?? route?.name ?? 'Meridian' }) }}
    >
      <Root.Navigator
        initialRouteName="App"
        screenOptions={{ headerShown: false, animation: Platform.OS === 'web' ? 'none' : 'default' }}
      >
        <Root.Screen name="Auth" component={AuthScreen} options={{ title: t('Sign in') }} />
        <Root.Screen name="App" component={AppArea} />
        <Root.Screen name="NotFound" component={NotFoundScreen} options={{ title: t('Not Found') }} />
      </Root.Navigator>
    </NavigationContainer>
  );
}
