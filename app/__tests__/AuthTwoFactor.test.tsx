import { NavigationContainer, useRoute } from '@react-navigation/native';
import { createNativeStackNavigator } from '@react-navigation/native-stack';
import { Text } from 'react-native';

import { act, fireEvent, screen, valueOf, waitFor } from './rtl';

import type { RootParamList } from '../navigators/routes';
import AuthScreen from '../screens/AuthScreen';
import type { User } from '../services/api/types';
import { sessionStore } from '../state/session';
import { toast } from '../state/toast';
import { testQueryClient } from './screenHarness';
import { jsonResponse, mockFetch, renderWithProviders } from './testUtils';

const Stack = createNativeStackNavigator<RootParamList>();

function FakeApp() {
  const route = useRoute();
  const params = route.params as { screen?: string } | undefined;
  return <Text>{`APP ${params?.screen ?? '-'}`}</Text>;
}

function renderAuth() {
  return renderWithProviders(
    <NavigationContainer>
      <Stack.Navigator initialRouteName="Auth" screenOptions={{ headerShown: false }}>
        <Stack.Screen name="Auth" component={AuthScreen} />
        <Stack.Screen name="App" component={FakeApp} />
      </Stack.Navigator>
    </NavigationContainer>,
    { notifications: false, queryClient: testQueryClient() },
  );
}

const user: User = {
  id: 2,
  full_name: 'Alice Doe',
  email: 'alice@meridian.test',
  phone_number: '+15550100',
  role: 'User',
  is_active: true,
  created_at: '2026-01-01T00:00:00Z',
};

const EXPIRED = 'This sign-in has expired or was already used; sign in again with your email and password';

/** The server of a user with two-factor sign-in on: the password answers a challenge; verify checks the code. */
function twoFactorServer(verify: (body: { challenge: string; code: string }) => Response) {
  return mockFetch({
    'POST /api/auth/login': () => jsonResponse(200, { two_factor_required: true, challenge: 'chal-1' }),
    'POST /api/auth/2fa/verify': (body) => verify(body as { challenge: string; code: string }),
    'GET /api/user/notifications': () => jsonResponse(200, []),
  });
}

async function passwordStep() {
  fireEvent.changeText(screen.getByLabelText('Username'), 'alice@meridian.test');
  fireEvent.changeText(screen.getByLabelText('Password'), 'alice12345');
  fireEvent.press(screen.getByTestId('login-submit'));
  await screen.findByTestId('twofactor-form');
}

const realFetch = global.fetch;

beforeEach(async () => {
  await sessionStore.signOut();
  sessionStore.rememberRoute(null);
});

afterEach(async () => {
  global.fetch = realFetch;
  act(() => toast.dismiss());
  await act(() => sessionStore.signOut());
});

describe('the second sign-in step', () => {
  it('a right password with 2FA on asks for the code, stores no token; the right code signs in', async () => {
    const { calls } = twoFactorServer(() => jsonResponse(200, { token: 'tok-2fa', expires_at: '', user }));
    renderAuth();
    await passwordStep();
    expect(screen.getByText('Two-factor sign-in')).toBeTruthy();
    expect(screen.getByText('Enter the 6-digit code from your authenticator app, or a backup code.')).toBeTruthy();
    expect(sessionStore.getState().token).toBeNull();
    expect(screen.queryByTestId('login-form')).toBeNull();

    fireEvent.changeText(screen.getByLabelText('Code'), '123 456');
    fireEvent.press(screen.getByTestId('login-verify'));
    expect(await screen.findByText('Login successful!')).toBeTruthy();
    expect(await screen.findByText('APP Dashboard')).toBeTruthy();
    expect(calls.find((c) => c.path === '/api/auth/2fa/verify')?.body).toEqual({ challenge: 'chal-1', code: '123456' });
    expect(sessionStore.getState()).toMatchObject({ token: 'tok-2fa', user });
  });

  it('a backup code works too', async () => {
    const { calls } = twoFactorServer(() => jsonResponse(200, { token: 'tok-backup', expires_at: '', user }));
    renderAuth();
    await passwordStep();
    fireEvent.changeText(screen.getByLabelText('Code'), 'abcde-fghjk');
    fireEvent.press(screen.getByTestId('login-verify'));
    expect(await screen.findByText('APP Dashboard')).toBeTruthy();
    expect(calls.find((c) => c.path === '/api/auth/2fa/verify')?.body).toEqual({ challenge: 'chal-1', code: 'abcde-fghjk' });
  });

  it("a wrong code shows the server's sentence and stays on the step; a malformed one is refused here", async () => {
    const { calls } = twoFactorServer(() => jsonResponse(401, { error: 'Invalid code', code: 'invalid_two_factor_code' }));
    renderAuth();
    await passwordStep();
    fireEvent.press(screen.getByTestId('login-verify'));
    expect(await screen.findAllByText('Enter the 6-digit code from your authenticator app, or a backup code')).toBeTruthy();
    expect(calls.some((c) => c.path === '/api/auth/2fa/verify')).toBe(false);

    fireEvent.changeText(screen.getByLabelText('Code'), '000000');
    fireEvent.press(screen.getByTestId('login-verify'));
    expect(await screen.findByText('Invalid code')).toBeTruthy();
    expect(screen.getByTestId('twofactor-form')).toBeTruthy();
    expect(sessionStore.getState().token).toBeNull();
  });

  it('a backup code used before says so, not "Invalid code"', async () => {
    twoFactorServer(() => jsonResponse(401, { error: 'This backup code was already used; use another one', code: 'backup_code_used' }));
    renderAuth();
    await passwordStep();
    fireEvent.changeText(screen.getByLabelText('Code'), 'abcde-fghjk');
    fireEvent.press(screen.getByTestId('login-verify'));
    expect(await screen.findByText('This backup code was already used; use another one')).toBeTruthy();
    expect(screen.queryByText('Invalid code')).toBeNull();
    expect(screen.getByTestId('twofactor-form')).toBeTruthy();
  });

  it('too many attempts: the server says so', async () => {
    twoFactorServer(() => jsonResponse(429, { error: 'Too many attempts; try again later', code: 'too_many_attempts' }));
    renderAuth();
    await passwordStep();
    fireEvent.changeText(screen.getByLabelText('Code'), '111111');
    fireEvent.press(screen.getByTestId('login-verify'));
    expect(await screen.findByText('Too many attempts; try again later')).toBeTruthy();
  });

  it('an expired challenge goes back to the password step with the reason', async () => {
    twoFactorServer(() => jsonResponse(401, { error: EXPIRED, code: 'invalid_challenge' }));
    renderAuth();
    await passwordStep();
    fireEvent.changeText(screen.getByLabelText('Code'), '123456');
    fireEvent.press(screen.getByTestId('login-verify'));
    expect(await screen.findByTestId('login-expired')).toHaveTextContent(EXPIRED);
    expect(screen.queryByTestId('twofactor-form')).toBeNull();
    expect(valueOf(screen.getByLabelText('Username'))).toBe('alice@meridian.test');
    expect(valueOf(screen.getByLabelText('Password'))).toBe('');
    expect(sessionStore.getState().token).toBeNull();
  });

  it('Back returns to the password step', async () => {
    twoFactorServer(() => jsonResponse(200, { token: 'never', expires_at: '', user }));
    renderAuth();
    await passwordStep();
    fireEvent.press(screen.getByTestId('login-back'));
    await waitFor(() => expect(screen.queryByTestId('twofactor-form')).toBeNull());
    expect(screen.getByTestId('login-form')).toBeTruthy();
    expect(screen.getByText('Sign in to your account')).toBeTruthy();
    expect(valueOf(screen.getByLabelText('Username'))).toBe('alice@meridian.test');
  });

  it('without 2FA, the password alone still signs in (the demo sign-ins)', async () => {
    mockFetch({
      'POST /api/auth/login': () => jsonResponse(200, { token: 'tok-plain', expires_at: '', user }),
      'GET /api/user/notifications': () => jsonResponse(200, []),
    });
    renderAuth();
    fireEvent.changeText(screen.getByLabelText('Username'), 'alice@meridian.test');
    fireEvent.changeText(screen.getByLabelText('Password'), 'alice12345');
    fireEvent.press(screen.getByTestId('login-submit'));
    expect(await screen.findByText('APP Dashboard')).toBeTruthy();
    expect(screen.queryByTestId('twofactor-form')).toBeNull();
  });
});
