import { NavigationContainer, useRoute } from '@react-navigation/native';
import { createNativeStackNavigator } from '@react-navigation/native-stack';
import { act, fireEvent, onWeb, screen, valueOf, waitFor } from './rtl';
import { Text } from 'react-native';

import type { RootParamList } from '../navigators/routes';
import AuthScreen from '../screens/AuthScreen';
import type { User } from '../services/api/types';
import { serverAddress } from '../services/serverAddress';
import { sessionStore } from '../state/session';
import { toast } from '../state/toast';
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
    { notifications: false },
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

const realFetch = global.fetch;

beforeEach(async () => {
  await sessionStore.signOut();
  sessionStore.rememberRoute(null);
});

afterEach(() => {
  global.fetch = realFetch;
  act(() => toast.dismiss());
});

describe('AuthScreen', () => {
  it('shows the welcome heading and the Login tab with its fields', () => {
    renderAuth();
    expect(screen.getByText('Welcome to Meridian Bank')).toBeTruthy();
    expect(screen.getByText('Sign in to your account')).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'Login' })).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'Register' })).toBeTruthy();
    expect(screen.getByLabelText('Username')).toBeTruthy();
    expect(screen.getByLabelText('Password')).toBeTruthy();
    expect(screen.getByText('Remember me')).toBeTruthy();
    expect(screen.getByText('Forgot your password')).toBeTruthy();
    expect(screen.queryByLabelText('Full Name')).toBeNull();
  });

  it('the Register tab shows its subtitle and fields', () => {
    renderAuth();
    fireEvent.press(screen.getByRole('tab', { name: 'Register' }));
    expect(screen.getByText('Create your account')).toBeTruthy();
    expect(screen.queryByText('Sign in to your account')).toBeNull();
    for (const label of ['Full Name', 'Email', 'Phone', 'Password']) expect(screen.getByLabelText(label)).toBeTruthy();
    expect(screen.queryByLabelText('Username')).toBeNull();
    // Remember me toggles (and does nothing else).
    fireEvent.press(screen.getByRole('tab', { name: 'Login' }));
    fireEvent.press(screen.getByRole('checkbox', { name: 'Remember me' }));
    expect(screen.getByRole('checkbox', { name: 'Remember me' })).toBeChecked();
  });

  it('login sends the username as email, stores the session, toasts and goes to /', async () => {
    const { calls } = mockFetch({
      'POST /api/auth/login': () => jsonResponse(200, { token: 'tok-1', expires_at: '2026-11-22T00:00:00Z', user }),
      'GET /api/user/notifications': () => jsonResponse(200, []),
    });
    renderAuth();
    fireEvent.changeText(screen.getByLabelText('Username'), ' alice@meridian.test ');
    fireEvent.changeText(screen.getByLabelText('Password'), 'alice12345');
    fireEvent.press(screen.getByTestId('login-submit'));
    expect(await screen.findByText('Login successful!')).toBeTruthy();
    expect(await screen.findByText('APP Dashboard')).toBeTruthy();
    expect(calls[0]).toMatchObject({
      method: 'POST',
      path: '/api/auth/login',
      body: { email: 'alice@meridian.test', password: 'alice12345' },
    });
    expect(sessionStore.getState()).toMatchObject({ token: 'tok-1', user });
  });

  it('after login goes to the remembered page', async () => {
    mockFetch({
      'POST /api/auth/login': () => jsonResponse(200, { token: 'tok-2', expires_at: '', user }),
      'GET /api/user/notifications': () => jsonResponse(200, []),
    });
    sessionStore.rememberRoute({ name: 'TransferFunds' });
    renderAuth();
    fireEvent.changeText(screen.getByLabelText('Username'), 'alice@meridian.test');
    fireEvent.changeText(screen.getByLabelText('Password'), 'alice12345');
    fireEvent.press(screen.getByTestId('login-submit'));
    expect(await screen.findByText('APP TransferFunds')).toBeTruthy();
  });

  it("login failure shows the server's error field", async () => {
    mockFetch({ 'POST /api/auth/login': () => jsonResponse(403, { error: 'This user is deactivated', code: 'user_inactive' }) });
    renderAuth();
    fireEvent.changeText(screen.getByLabelText('Username'), 'bob@meridian.test');
    fireEvent.changeText(screen.getByLabelText('Password'), 'whatever1');
    fireEvent.press(screen.getByTestId('login-submit'));
    expect(await screen.findByText('This user is deactivated')).toBeTruthy();
    expect(sessionStore.getState().token).toBeNull();
    expect(screen.getByText('Welcome to Meridian Bank')).toBeTruthy();
  });

  it("login failure without an error field shows 'Invalid credentials'", async () => {
    mockFetch({ 'POST /api/auth/login': () => jsonResponse(500) });
    renderAuth();
    fireEvent.changeText(screen.getByLabelText('Username'), 'x@y.test');
    fireEvent.changeText(screen.getByLabelText('Password'), 'nopenope');
    fireEvent.press(screen.getByTestId('login-submit'));
    expect(await screen.findByText('Invalid credentials')).toBeTruthy();
  });

  it('does not call the server with empty fields', () => {
    const { fn } = mockFetch({});
    renderAuth();
    fireEvent.press(screen.getByTestId('login-submit'));
    expect(screen.getByText('Username is required')).toBeTruthy();
    expect(fn).not.toHaveBeenCalled();
  });

  it('register sends the four fields, toasts and switches to the Login tab', async () => {
    const { calls } = mockFetch({
      'POST /api/auth/register': () => jsonResponse(201, { message: 'Registration successful', user }),
    });
    renderAuth();
    fireEvent.press(screen.getByRole('tab', { name: 'Register' }));
    fireEvent.changeText(screen.getByLabelText('Full Name'), 'Carol King');
    fireEvent.changeText(screen.getByLabelText('Email'), 'carol@meridian.test');
    fireEvent.changeText(screen.getByLabelText('Phone'), '+15550123');
    fireEvent.changeText(screen.getByLabelText('Password'), 'carol12345');
    fireEvent.press(screen.getByTestId('register-submit'));
    expect(await screen.findByText('Registration successful!')).toBeTruthy();
    await waitFor(() => expect(screen.getByText('Sign in to your account')).toBeTruthy());
    expect(screen.getByRole('tab', { name: 'Login' })).toBeSelected();
    expect(valueOf(screen.getByLabelText('Username'))).toBe('carol@meridian.test');
    expect(calls[0]).toMatchObject({
      method: 'POST',
      path: '/api/auth/register',
      body: { full_name: 'Carol King', email: 'carol@meridian.test', phone_number: '+15550123', password: 'carol12345' },
    });
    // Registering does not sign in.
    expect(sessionStore.getState().token).toBeNull();
  });

  it("register failure shows the server's error, else 'Registration failed'", async () => {
    let answer = jsonResponse(409, { error: 'An account with this email already exists', code: 'conflict' });
    mockFetch({ 'POST /api/auth/register': () => answer });
    renderAuth();
    fireEvent.press(screen.getByRole('tab', { name: 'Register' }));
    fireEvent.changeText(screen.getByLabelText('Full Name'), 'Alice Doe');
    fireEvent.changeText(screen.getByLabelText('Email'), 'alice@meridian.test');
    fireEvent.changeText(screen.getByLabelText('Phone'), '1');
    fireEvent.changeText(screen.getByLabelText('Password'), 'alice12345');
    fireEvent.press(screen.getByTestId('register-submit'));
    expect(await screen.findByText('An account with this email already exists')).toBeTruthy();
    expect(screen.getByText('Create your account')).toBeTruthy();

    answer = jsonResponse(502);
    fireEvent.press(screen.getByTestId('register-submit'));
    expect(await screen.findByText('Registration failed')).toBeTruthy();
  });

  if (onWeb) {
    it('the web has no Server field: it talks to its own origin', async () => {
      const { calls } = mockFetch({ 'POST /api/auth/login': () => jsonResponse(200, { token: 'tok-9', expires_at: '', user }) });
      renderAuth();
      expect(screen.queryByLabelText('Server')).toBeNull();
      fireEvent.changeText(screen.getByLabelText('Username'), 'alice@meridian.test');
      fireEvent.changeText(screen.getByLabelText('Password'), 'alice12345');
      fireEvent.press(screen.getByTestId('login-submit'));
      expect(await screen.findByText('APP Dashboard')).toBeTruthy();
      expect(calls.map((c) => c.url)).toEqual(['/api/auth/login']);
    });
  }

  if (!onWeb) describe('the Server field (Android/iOS)', () => {
    const defaultServer = serverAddress.get();
    afterEach(() => serverAddress.set(defaultServer));

    const login = () => {
      fireEvent.changeText(screen.getByLabelText('Username'), 'alice@meridian.test');
      fireEvent.changeText(screen.getByLabelText('Password'), 'alice12345');
      fireEvent.press(screen.getByTestId('login-submit'));
    };

    it("shows the build's server, checks a new one with GET /readyz, remembers it and signs in there", async () => {
      const { calls } = mockFetch({
        'GET /readyz': () => jsonResponse(200, { status: 'ready' }),
        'POST /api/auth/login': () => jsonResponse(200, { token: 'tok-9', expires_at: '', user }),
      });
      renderAuth();
      expect(screen.getByLabelText('Server')).toHaveDisplayValue(defaultServer);
      fireEvent.changeText(screen.getByLabelText('Server'), '192.168.1.20:8080/');
      login();
      expect(await screen.findByText('APP Dashboard')).toBeTruthy();
      expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
        'GET http://192.168.1.20:8080/readyz',
        'POST http://192.168.1.20:8080/api/auth/login',
      ]);
      expect(serverAddress.get()).toBe('http://192.168.1.20:8080');
    });

    it('refuses a server that does not answer /readyz, and sends nothing else', async () => {
      const { calls } = mockFetch({ 'GET /readyz': () => jsonResponse(503, { error: 'The database is not reachable' }) });
      renderAuth();
      fireEvent.changeText(screen.getByLabelText('Server'), 'http://10.0.0.9:8080');
      login();
      const message = 'The server at http://10.0.0.9:8080 is not ready: The database is not reachable';
      expect(await screen.findAllByText(message)).toHaveLength(2); // the toast and the field's error
      expect(calls.map((c) => c.path)).toEqual(['/readyz']);
      expect(serverAddress.get()).toBe(defaultServer);
      expect(sessionStore.getState().token).toBeNull();
    });

    it('refuses text that is no server address', async () => {
      const { calls } = mockFetch({});
      renderAuth();
      fireEvent.changeText(screen.getByLabelText('Server'), 'ftp://nowhere');
      login();
      expect(await screen.findByText('Enter the server address, e.g. https://bank.example.com')).toBeTruthy();
      expect(calls).toHaveLength(0);
    });

    it('an unchanged server is not checked again', async () => {
      const { calls } = mockFetch({ 'POST /api/auth/login': () => jsonResponse(200, { token: 'tok-9', expires_at: '', user }) });
      renderAuth();
      login();
      expect(await screen.findByText('APP Dashboard')).toBeTruthy();
      expect(calls.map((c) => c.path)).toEqual(['/api/auth/login']);
    });
  });
});
