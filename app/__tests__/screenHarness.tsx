import { NavigationContainer, useRoute } from '@react-navigation/native';
import { createNativeStackNavigator } from '@react-navigation/native-stack';
import { act } from './rtl';
import type { ComponentType, ReactElement } from 'react';
import { Text } from 'react-native';

import type { Account, Approval, MoneyRequest, Transaction, User } from '../services/api/types';
import { sessionStore } from '../state/session';
import { toast } from '../state/toast';
import { makeQueryClient, renderWithProviders } from './testUtils';

/** Shows where a navigation went: 'ROUTE <name> <params as JSON>'. */
function Probe() {
  const route = useRoute();
  return <Text testID="probe">{`ROUTE ${route.name} ${JSON.stringify(route.params ?? {})}`}</Text>;
}

type AnyParams = Record<string, object | undefined>;
const Stack = createNativeStackNavigator<AnyParams>();

/**
 * Renders one screen inside a small navigator that also holds the routes it
 * may go to (Dashboard, Auth, App), each a probe showing its name and params.
 */
export function renderScreen(Screen: ComponentType<object>, params?: object) {
  return renderWithProviders(
    <NavigationContainer>
      <Stack.Navigator initialRouteName="Screen" screenOptions={{ headerShown: false }}>
        <Stack.Screen name="Screen" component={Screen} initialParams={params} />
        <Stack.Screen name="Dashboard" component={Probe} />
        <Stack.Screen name="Auth" component={Probe} />
        <Stack.Screen name="App" component={Probe} />
      </Stack.Navigator>
    </NavigationContainer>,
    { notifications: false, queryClient: testQueryClient() },
  );
}

export const customer: User = {
  id: 2,
  full_name: 'Alice Smith',
  email: 'alice@meridian.test',
  phone_number: '+15550100',
  role: 'User',
  is_active: true,
  created_at: '2026-01-01T00:00:00Z',
};

export const adminUser: User = { ...customer, id: 1, full_name: 'Ada Admin', email: 'admin@meridian.test', role: 'Admin' };

export const accounts: Account[] = [
  {
    id: 11,
    name: 'Alice Smith',
    account_number: '100200300',
    account_type_id: 1,
    type_name: 'Checking',
    balance: 1250.5,
    currency: 'USD',
    created_at: '2026-02-03T10:00:00Z',
    user_id: 2,
  },
  {
    id: 12,
    name: 'Alice Smith',
    account_number: '100200301',
    account_type_id: 2,
    type_name: 'Savings',
    balance: 0.1,
    currency: 'USD',
    created_at: '2026-03-04T10:00:00Z',
    user_id: 2,
  },
];

export const transactions: Transaction[] = [
  {
    id: 1,
    transaction_date: '2026-05-06T08:09:10Z',
    transaction_type: 'DEBIT',
    amount: 12.5,
    account_id: '100200300',
    to_account_id: '900800700',
    description: 'Rent share',
    kind: 'transfer',
    reverses: null,
    reversed_by: null,
  },
  {
    id: 2,
    transaction_date: '2026-05-07T08:09:10Z',
    transaction_type: 'CREDIT',
    amount: 1000,
    account_id: '900800700',
    to_account_id: '100200300',
    description: 'Salary',
    kind: 'transfer',
    reverses: null,
    reversed_by: null,
  },
];

export const requests: MoneyRequest[] = [
  {
    ID: 31,
    Amount: 20,
    requester_id: '900800700',
    recipient_id: '100200300',
    Status: 'PENDING',
    RequesteAt: '2026-05-01T12:00:00Z',
    ExpiresAt: '2026-05-08T12:00:00Z',
    description: 'Lunch',
    direction: 'incoming',
  },
  {
    ID: 32,
    Amount: 7.5,
    requester_id: '100200300',
    recipient_id: '900800700',
    Status: 'PENDING',
    RequesteAt: '2026-05-02T12:00:00Z',
    ExpiresAt: '2026-05-09T12:00:00Z',
    description: 'Cinema',
    direction: 'outgoing',
  },
  {
    ID: 33,
    Amount: 3,
    requester_id: '900800701',
    recipient_id: '100200300',
    Status: 'ACCEPTED',
    RequesteAt: '2026-04-02T12:00:00Z',
    ExpiresAt: '2026-04-09T12:00:00Z',
    description: 'Coffee',
    direction: 'incoming',
  },
];

/** An approval (four eyes) as the server lists it: pending, asked by another administrator (id 9). */
export function approval(id: number, over: Partial<Approval> = {}): Approval {
  return {
    id,
    kind: 'deposit',
    summary: `Deposit $${id}0,000.00 into 100200300`,
    requested_by: 'other@meridian.test',
    requested_by_id: 9,
    requested_at: '2026-06-01T10:00:00Z',
    expires_at: '2026-06-02T10:00:00Z',
    status: 'pending',
    decided_by: null,
    decided_by_id: null,
    decided_at: null,
    reason: null,
    ...over,
  };
}

/**
 * Signs `user` in before each test of the file; after each, restores the
 * real fetch, dismisses toasts and signs out, so no test sees another's state.
 */
export function signedInAs(user: User, token = 'tok') {
  const realFetch = global.fetch;
  beforeEach(async () => {
    await sessionStore.signIn(token, user);
  });
  afterEach(async () => {
    global.fetch = realFetch;
    act(() => toast.dismiss());
    await act(() => sessionStore.signOut());
  });
}

/** A promise that never settles: the request stays in flight. */
export const pending = () => new Promise<Response>(() => undefined);

/** A query client that leaves no garbage-collection timer behind (makeQueryClient: Jest exits promptly). */
export const testQueryClient = makeQueryClient;

/** Renders an element (no navigator) with the app's providers and testQueryClient(). */
export function renderElement(ui: ReactElement, options: { notifications?: boolean } = {}) {
  return renderWithProviders(ui, { queryClient: testQueryClient(), ...options });
}
