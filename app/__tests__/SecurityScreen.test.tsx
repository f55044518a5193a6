import type { QueryClient } from '@tanstack/react-query';
import * as Clipboard from 'expo-clipboard';
import QRCode from 'react-native-qrcode-svg';

import { fireEvent, onWeb, screen, waitFor, within } from './rtl';

import SecurityScreen from '../screens/SecurityScreen';
import type { SignedInSession } from '../services/api/types';
import { twoFactorGate } from '../state/twoFactorGate';
import { customer, renderElement, signedInAs } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

jest.mock('expo-clipboard', () => ({ setStringAsync: jest.fn(async () => true) }));

const OTPAUTH = 'otpauth://totp/Meridian:alice@meridian.test?algorithm=SHA1&digits=6&issuer=Meridian&period=30&secret=JBSWY3DPEHPK3PXP';
const CODES = ['abcde-fghjk', 'bcdef-ghjkm', 'cdefg-hjkmn', 'defgh-jkmnp', 'efghj-kmnpq', 'fghjk-mnpqr', 'ghjkm-npqrs', 'hjkmn-pqrst', 'jkmnp-qrstu', 'kmnpq-rstuv'];

const sessions: SignedInSession[] = [
  {
    id: 7,
    created_at: '2026-05-06T08:00:00Z',
    last_seen_at: new Date().toISOString(),
    user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0 Safari/537.36',
    ip: '203.0.113.7',
    current: true,
  },
  {
    id: 5,
    created_at: '2026-05-01T08:00:00Z',
    last_seen_at: '2026-05-02T08:00:00Z',
    user_agent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1',
    ip: '198.51.100.4',
    current: false,
  },
  { id: 3, created_at: '2026-04-01T08:00:00Z', last_seen_at: '2026-04-01T08:00:00Z', user_agent: '', ip: null, current: false },
];

function server(extra: Parameters<typeof mockFetch>[0] = {}, enabled = false) {
  return mockFetch({
    'GET /api/auth/2fa': () => jsonResponse(200, { enabled, backup_codes_left: enabled ? 8 : 0 }),
    'GET /api/auth/sessions': () => jsonResponse(200, sessions),
    'GET /api/auth/tokens': () => jsonResponse(200, []),
    'GET /api/auth/connected-apps': () => jsonResponse(200, []),
    ...extra,
  });
}

signedInAs(customer, 'tok-alice');

let client: QueryClient | null = null;
function renderSecurity() {
  const rendered = renderElement(<SecurityScreen />, { notifications: false });
  client = rendered.queryClient;
  return rendered;
}

// No query or mutation may still be settling when the test's session ends.
afterEach(async () => {
  const c = client;
  client = null;
  if (c) await waitFor(() => expect(c.isFetching() + c.isMutating()).toBe(0));
  twoFactorGate.clear();
});

/** The QR code is drawn in the app: an SVG on the web, react-native-svg's tree on Android/iOS, holding the otpauth URL. */
function expectQrOf(value: string) {
  const frame = screen.getByTestId('twofactor-qr');
  if (onWeb) {
    const svg = (frame as unknown as HTMLElement).querySelector('svg');
    expect(svg).not.toBeNull();
    expect(svg!.querySelectorAll('path').length).toBeGreaterThan(0);
  }
  const qr = (screen as unknown as { UNSAFE_getByType?: (t: unknown) => { props: { value: string } } }).UNSAFE_getByType;
  if (qr) expect(qr(QRCode).props.value).toBe(value);
}

describe('access tokens', () => {
  it('creates one for the scopes picked, shows its text once, and revokes one', async () => {
    let rows = [{ id: 4, name: 'Old script', scopes: ['accounts:read'], created_at: '2026-05-01T08:00:00Z', expires_at: '2026-08-01T08:00:00Z', last_used_at: '2026-05-02T08:00:00Z' }];
    const { calls } = server({
      'GET /api/auth/tokens': () => jsonResponse(200, rows),
      'POST /api/auth/tokens': (body) => {
        const b = body as { name: string; scopes: string[] };
        rows = [{ id: 9, name: b.name, scopes: b.scopes, created_at: '2026-05-06T08:00:00Z', expires_at: '2026-06-05T08:00:00Z', last_used_at: '2026-05-06T08:00:00Z' }, ...rows];
        return jsonResponse(201, { id: 9, name: b.name, scopes: b.scopes, token: 'mrd_pat_secret123', expires_at: '2026-06-05T08:00:00Z' });
      },
      'DELETE /api/auth/tokens/4': () => {
        rows = rows.filter((r) => r.id !== 4);
        return jsonResponse(204);
      },
    });
    renderSecurity();
    expect(await screen.findByTestId('access-token-4')).toHaveTextContent(/Old script/);
    fireEvent.press(screen.getByTestId('access-token-create'));
    fireEvent.press(await screen.findByTestId('access-token-submit'));
    expect(await screen.findByText('Name the token')).toBeTruthy();
    expect(screen.getByText('Pick at least one scope')).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST' && c.path === '/api/auth/tokens')).toBe(false);
    fireEvent.changeText(screen.getByTestId('access-token-name'), 'Budget script');
    fireEvent.press(screen.getByTestId('access-token-scope-transactions:read'));
    fireEvent.changeText(screen.getByTestId('access-token-password'), 'alice12345');
    fireEvent.press(screen.getByTestId('access-token-submit'));
    expect(await screen.findByTestId('access-token-text')).toHaveTextContent('mrd_pat_secret123');
    expect(calls.find((c) => c.method === 'POST' && c.path === '/api/auth/tokens')?.body).toEqual({
      name: 'Budget script',
      scopes: ['transactions:read'],
      expires_in_days: 30,
      password: 'alice12345',
    });
    expect(await screen.findByTestId('access-token-9')).toHaveTextContent(/Budget script/);
    fireEvent.press(screen.getByTestId('access-token-done'));
    expect(screen.queryByTestId('access-token-text')).toBeNull();
    fireEvent.press(screen.getByTestId('access-token-revoke-4'));
    expect(await screen.findByText('Access token "Old script" revoked')).toBeTruthy();
    await waitFor(() => expect(screen.queryByTestId('access-token-4')).toBeNull());
  });

  it('lists connected apps and disconnects one', async () => {
    let apps = [{ id: 2, client_id: 'mrd_app_x', client_name: 'Budget Buddy', scopes: [{ scope: 'accounts:read', description: 'See your accounts and their balances' }], accounts: ['100200300'], created_at: '2026-05-01T08:00:00Z' }];
    const { calls } = server({
      'GET /api/auth/connected-apps': () => jsonResponse(200, apps),
      'DELETE /api/auth/connected-apps/2': () => {
        apps = [];
        return jsonResponse(204);
      },
    });
    renderSecurity();
    const row = await screen.findByTestId('connected-app-2');
    expect(within(row).getByText('Budget Buddy')).toBeTruthy();
    expect(within(row).getByText('See your accounts and their balances')).toBeTruthy();
    fireEvent.press(screen.getByTestId('connected-app-disconnect-2'));
    expect(await screen.findByText('Budget Buddy is disconnected')).toBeTruthy();
    await waitFor(() => expect(screen.queryByTestId('connected-app-2')).toBeNull());
    expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/auth/connected-apps/2')).toBe(true);
  });
});

describe('two-factor sign-in', () => {
  it('shows it off, with a way to set it up', async () => {
    server();
    renderSecurity();
    expect(screen.getByText('Security')).toBeTruthy();
    expect(await screen.findByTestId('twofactor-state')).toHaveTextContent('Off');
    expect(screen.getByTestId('twofactor-setup-start')).toHaveTextContent('Set up two-factor sign-in');
  });

  it('set up: draws the QR code, shows the key, refuses a malformed code, turns on, shows the backup codes once', async () => {
    let enabled = false;
    const { calls } = mockFetch({
      'GET /api/auth/2fa': () => jsonResponse(200, { enabled, backup_codes_left: enabled ? 10 : 0 }),
      'GET /api/auth/sessions': () => jsonResponse(200, sessions),
      'POST /api/auth/2fa/setup': () => jsonResponse(200, { secret: 'JBSWY3DPEHPK3PXP', otpauth_url: OTPAUTH }),
      'POST /api/auth/2fa/enable': (body) => {
        if ((body as { code: string }).code !== '123456') {
          return jsonResponse(400, {
            error: 'Invalid input',
            code: 'invalid_input',
            fields: { code: 'The code is wrong or has expired; enter the current code from your authenticator app' },
          });
        }
        enabled = true;
        return jsonResponse(200, { backup_codes: CODES });
      },
    });
    renderSecurity();
    fireEvent.press(await screen.findByTestId('twofactor-setup-start'));

    await screen.findByTestId('twofactor-setup');
    expectQrOf(OTPAUTH);
    expect(screen.getByLabelText('QR code for your authenticator app')).toBeTruthy();
    expect(screen.getByTestId('twofactor-secret')).toHaveTextContent('JBSW Y3DP EHPK 3PXP');

    // Not six digits: refused here, nothing sent.
    fireEvent.changeText(screen.getByTestId('twofactor-code'), '12ab');
    fireEvent.press(screen.getByTestId('twofactor-enable'));
    expect(await screen.findByText('Enter the 6-digit code from your authenticator app')).toBeTruthy();
    expect(calls.some((c) => c.path === '/api/auth/2fa/enable')).toBe(false);

    // A wrong code: the server's sentence under the field.
    fireEvent.changeText(screen.getByTestId('twofactor-code'), '654 321');
    fireEvent.press(screen.getByTestId('twofactor-enable'));
    expect(await screen.findByText('The code is wrong or has expired; enter the current code from your authenticator app')).toBeTruthy();
    expect(calls.find((c) => c.path === '/api/auth/2fa/enable')?.body).toEqual({ code: '654321' });

    fireEvent.changeText(screen.getByTestId('twofactor-code'), '123456');
    fireEvent.press(screen.getByTestId('twofactor-enable'));
    await screen.findByTestId('twofactor-backup-codes');
    const shown = screen.getAllByTestId('twofactor-backup-code');
    expect(shown).toHaveLength(10);
    expect(shown.map((el) => el.textContent ?? (el as unknown as { props: { children: string } }).props.children)).toEqual(CODES);

    fireEvent.press(screen.getByTestId('twofactor-copy-codes'));
    await waitFor(() => expect(Clipboard.setStringAsync).toHaveBeenCalledWith(CODES.join('\n')));
    expect(await screen.findByText('Backup codes copied')).toBeTruthy();

    // Done only after confirming they are saved; then they are gone for good.
    fireEvent.press(screen.getByTestId('twofactor-codes-done'));
    expect(screen.getByTestId('twofactor-backup-codes')).toBeTruthy();
    fireEvent.press(screen.getByTestId('twofactor-codes-saved'));
    fireEvent.press(screen.getByTestId('twofactor-codes-done'));
    await waitFor(() => expect(screen.queryByTestId('twofactor-backup-codes')).toBeNull());
    expect(await screen.findByText('Two-factor sign-in is on')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('twofactor-state')).toHaveTextContent('On'));
    expect(screen.queryByText(CODES[0])).toBeNull();
  });

  it("a refused setup shows the server's sentence", async () => {
    server({
      'POST /api/auth/2fa/setup': () =>
        jsonResponse(409, { error: 'Two-factor sign-in is already on; turn it off first to set it up again', code: 'two_factor_enabled' }),
    });
    renderSecurity();
    fireEvent.press(await screen.findByTestId('twofactor-setup-start'));
    expect(await screen.findByTestId('toast-error')).toHaveTextContent('Two-factor sign-in is already on; turn it off first to set it up again');
    expect(screen.queryByTestId('twofactor-setup')).toBeNull();
  });

  it('turned on: the backup codes left, and turning off takes the password and a code (errors in the form)', async () => {
    let enabled = true;
    const { calls } = mockFetch({
      'GET /api/auth/2fa': () => jsonResponse(200, { enabled, backup_codes_left: enabled ? 8 : 0 }),
      'GET /api/auth/sessions': () => jsonResponse(200, sessions),
      'POST /api/auth/2fa/disable': (body) => {
        const { password, code } = body as { password: string; code: string };
        if (password !== 'alice12345') {
          return jsonResponse(400, { error: 'Invalid input', code: 'invalid_input', fields: { password: 'The password is incorrect' } });
        }
        if (code === '000000') return jsonResponse(429, { error: 'Too many attempts; try again later', code: 'too_many_attempts' });
        enabled = false;
        return jsonResponse(204);
      },
    });
    renderSecurity();
    expect(await screen.findByTestId('twofactor-state')).toHaveTextContent('On');
    expect(screen.getByTestId('twofactor-backup-left')).toHaveTextContent('Backup codes left: 8');

    fireEvent.press(screen.getByTestId('twofactor-disable-open'));
    await screen.findByTestId('twofactor-disable-modal');
    fireEvent.press(screen.getByTestId('twofactor-disable-submit'));
    expect(await screen.findByText('Password is required')).toBeTruthy();
    expect(screen.getByText('Enter the 6-digit code from your authenticator app, or a backup code')).toBeTruthy();

    fireEvent.changeText(screen.getByTestId('twofactor-disable-password'), 'wrong-pass');
    fireEvent.changeText(screen.getByTestId('twofactor-disable-code'), '123456');
    fireEvent.press(screen.getByTestId('twofactor-disable-submit'));
    expect(await screen.findByText('The password is incorrect')).toBeTruthy();

    fireEvent.changeText(screen.getByTestId('twofactor-disable-password'), 'alice12345');
    fireEvent.changeText(screen.getByTestId('twofactor-disable-code'), '000000');
    fireEvent.press(screen.getByTestId('twofactor-disable-submit'));
    expect(await screen.findByTestId('twofactor-disable-error')).toHaveTextContent('Too many attempts; try again later');

    // A backup code works too.
    fireEvent.changeText(screen.getByTestId('twofactor-disable-code'), 'ABCDE-FGHJK');
    fireEvent.press(screen.getByTestId('twofactor-disable-submit'));
    expect(await screen.findByText('Two-factor sign-in is off')).toBeTruthy();
    expect(calls.filter((c) => c.path === '/api/auth/2fa/disable').at(-1)?.body).toEqual({ password: 'alice12345', code: 'ABCDE-FGHJK' });
    await waitFor(() => expect(screen.getByTestId('twofactor-state')).toHaveTextContent('Off'));
  });

  it('explains why an administrator was sent here (require_2fa_for_admins)', async () => {
    server();
    twoFactorGate.raise('Administrators must turn on two-factor sign-in first: set it up under Security');
    renderSecurity();
    expect(await screen.findByTestId('twofactor-required')).toHaveTextContent(
      'Administrators must turn on two-factor sign-in first: set it up under Security',
    );
  });
});

describe('sessions', () => {
  it('lists them, this device marked, a Sign out on every other one', async () => {
    server();
    renderSecurity();
    const current = await screen.findByTestId('session-7');
    expect(within(current).getByText('This device')).toBeTruthy();
    expect(within(current).getByText('Chrome on Linux')).toBeTruthy();
    expect(within(current).getByText('From 203.0.113.7')).toBeTruthy();
    expect(screen.queryByTestId('session-signout-7')).toBeNull();
    expect(within(screen.getByTestId('session-5')).getByText('Safari on iPhone')).toBeTruthy();
    expect(screen.getByTestId('session-signout-5')).toHaveTextContent('Sign out');
    expect(within(screen.getByTestId('session-3')).getByText('Unknown device')).toBeTruthy();
    expect(within(screen.getByTestId('session-3')).getByText('Address unknown')).toBeTruthy();
  });

  it('signs one session out', async () => {
    let rows = sessions;
    const { calls } = server({
      'GET /api/auth/sessions': () => jsonResponse(200, rows),
      'DELETE /api/auth/sessions/5': () => {
        rows = rows.filter((s) => s.id !== 5);
        return jsonResponse(204);
      },
    });
    renderSecurity();
    fireEvent.press(await screen.findByTestId('session-signout-5'));
    expect(await screen.findByText('Session signed out')).toBeTruthy();
    await waitFor(() => expect(screen.queryByTestId('session-5')).toBeNull());
    expect(screen.getByTestId('session-3')).toBeTruthy();
    expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/auth/sessions/5')).toBe(true);
  });

  it("a refused sign-out shows the server's sentence", async () => {
    server({ 'DELETE /api/auth/sessions/5': () => jsonResponse(404, { error: 'Session not found', code: 'session_not_found' }) });
    renderSecurity();
    fireEvent.press(await screen.findByTestId('session-signout-5'));
    expect(await screen.findByTestId('toast-error')).toHaveTextContent('Session not found');
  });

  it('signs every other session out after a confirmation', async () => {
    let rows = sessions;
    const { calls } = server({
      'GET /api/auth/sessions': () => jsonResponse(200, rows),
      'POST /api/auth/sessions/revoke-others': () => {
        rows = rows.filter((s) => s.current);
        return jsonResponse(204);
      },
    });
    renderSecurity();
    await screen.findByTestId('session-5');
    fireEvent.press(screen.getByTestId('sessions-revoke-others'));
    expect(await screen.findByText('Sign out 2 other sessions? This device stays signed in.')).toBeTruthy();
    fireEvent.press(screen.getByTestId('sessions-revoke-others-dialog-confirm'));
    expect(await screen.findByText('Every other session is signed out')).toBeTruthy();
    await waitFor(() => expect(screen.queryByTestId('session-5')).toBeNull());
    expect(screen.queryByTestId('session-3')).toBeNull();
    expect(screen.getByTestId('session-7')).toBeTruthy();
    expect(calls.filter((c) => c.path === '/api/auth/sessions/revoke-others')).toHaveLength(1);
  });
});
