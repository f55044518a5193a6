import { act, chooseOption, fireEvent, onWeb, screen, valueOf, waitFor } from './rtl';

import { File as ExpoFile } from 'expo-file-system';
import * as Sharing from 'expo-sharing';

import TransactionHistoryScreen from '../screens/TransactionHistoryScreen';
import { sessionStore } from '../state/session';
import { thisMonth } from '../utils/format';
import { accounts, adminUser, customer, renderScreen, transactions } from './screenHarness';
import { jsonResponse, mockFetch } from './testUtils';

// Android/iOS: expo-file-system and expo-sharing have no native module under Jest.
jest.mock('expo-file-system', () => {
  class File {
    uri: string;
    constructor(dir: { uri: string }, name: string) {
      this.uri = `${dir.uri}${name}`;
    }
    static downloadFileAsync = jest.fn(async (_url: string, destination: File) => destination);
  }
  return { File, Paths: { cache: { uri: 'file:///cache/' } } };
});
jest.mock('expo-sharing', () => ({
  isAvailableAsync: jest.fn(async () => true),
  shareAsync: jest.fn(async () => undefined),
}));

const downloadFileAsync = (ExpoFile as unknown as { downloadFileAsync: jest.Mock }).downloadFileAsync;

const CSV = 'date,description,type,amount,balance,counterparty\n';

/** A file answer as the web's fetch gives it (blob + headers). */
function fileResponse(body: string, type: string, disposition?: string): Response {
  return {
    ok: true,
    status: 200,
    headers: { get: (name: string) => (name.toLowerCase() === 'content-disposition' ? disposition ?? null : name.toLowerCase() === 'content-type' ? type : null) },
    blob: async () => new Blob([body], { type }),
    text: async () => body,
  } as unknown as Response;
}

const realFetch = global.fetch;
afterEach(async () => {
  global.fetch = realFetch;
  await act(() => sessionStore.signOut());
});

function server(statement: Parameters<typeof mockFetch>[0][string]) {
  return mockFetch({
    'GET /api/user/accounts': () => jsonResponse(200, accounts),
    'GET /api/user/transactions/history': () => jsonResponse(200, { data: transactions, next_cursor: null }),
    'GET /api/user/statements': statement,
  });
}

async function openForm(params: object = { account_id: '100200300' }) {
  renderScreen(TransactionHistoryScreen, params);
  await screen.findByText('Salary');
  fireEvent.press(screen.getByTestId('statement-open'));
  await screen.findByTestId('statement-modal');
}

describe('Download statement', () => {
  let createObjectURL: jest.Mock;
  let revokeObjectURL: jest.Mock;
  let clicked: Array<{ href: string; download: string }>;

  beforeEach(async () => {
    await sessionStore.signIn('tok', customer);
    downloadFileAsync.mockClear();
    (Sharing.shareAsync as jest.Mock).mockClear();
    if (onWeb) {
      clicked = [];
      createObjectURL = jest.fn(() => 'blob:http://localhost/statement-1');
      revokeObjectURL = jest.fn();
      Object.assign(URL, { createObjectURL, revokeObjectURL });
      jest.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
        clicked.push({ href: this.getAttribute('href') ?? '', download: this.download });
      });
    }
  });

  afterEach(() => jest.restoreAllMocks());

  it("defaults to the page's account and this month, CSV", async () => {
    server(() => fileResponse(CSV, 'text/csv'));
    await openForm();
    const { from, to } = thisMonth();
    expect(valueOf(screen.getByTestId('statement-from'))).toBe(from);
    expect(valueOf(screen.getByTestId('statement-to'))).toBe(to);
    expect(from).toMatch(/^\d{4}-\d{2}-01$/);
  });

  it('CSV: GET /api/user/statements with the account, period and format; the file is saved under its name', async () => {
    const { calls } = server(() => fileResponse(CSV, 'text/csv', 'attachment; filename="statement-100200300-2026-05.csv"'));
    await openForm();
    fireEvent.changeText(screen.getByTestId('statement-from'), '2026-05-01');
    fireEvent.changeText(screen.getByTestId('statement-to'), '2026-05-31');
    fireEvent.press(screen.getByTestId('statement-submit'));
    if (onWeb) {
      expect(await screen.findByText('Statement downloaded: statement-100200300-2026-05.csv')).toBeTruthy();
      const call = calls.find((c) => c.path === '/api/user/statements')!;
      expect(new URLSearchParams(call.url.split('?')[1]).toString()).toBe('account_id=100200300&from=2026-05-01&to=2026-05-31&format=csv');
      expect(call.headers.Authorization).toBe('Bearer tok');
      expect(createObjectURL).toHaveBeenCalledTimes(1);
      expect((createObjectURL.mock.calls[0] as unknown[])[0]).toBeInstanceOf(Blob);
      expect(clicked).toEqual([{ href: 'blob:http://localhost/statement-1', download: 'statement-100200300-2026-05.csv' }]);
    } else {
      expect(await screen.findByText('Statement downloaded: statement-100200300-2026-05-01-to-2026-05-31.csv')).toBeTruthy();
      expect(downloadFileAsync).toHaveBeenCalledTimes(1);
      const [url, destination, options] = downloadFileAsync.mock.calls[0];
      expect(url).toMatch(/\/api\/user\/statements\?account_id=100200300&from=2026-05-01&to=2026-05-31&format=csv$/);
      expect(destination.uri).toBe('file:///cache/statement-100200300-2026-05-01-to-2026-05-31.csv');
      expect(options.headers).toMatchObject({ Authorization: 'Bearer tok', Accept: 'text/csv' });
      expect(Sharing.shareAsync).toHaveBeenCalledWith('file:///cache/statement-100200300-2026-05-01-to-2026-05-31.csv', expect.objectContaining({ mimeType: 'text/csv' }));
      expect(calls.some((c) => c.path === '/api/user/statements')).toBe(false);
    }
    await waitFor(() => expect(screen.queryByTestId('statement-modal')).toBeNull());
  });

  it('PDF of another account: format=pdf, application/pdf', async () => {
    const { calls } = server(() => fileResponse('%PDF-1.4', 'application/pdf'));
    await openForm();
    chooseOption('statement-account', '100200301 (Savings)');
    chooseOption('statement-format', 'PDF');
    fireEvent.changeText(screen.getByTestId('statement-from'), '2026-01-01');
    fireEvent.changeText(screen.getByTestId('statement-to'), '2026-03-31');
    fireEvent.press(screen.getByTestId('statement-submit'));
    expect(await screen.findByText('Statement downloaded: statement-100200301-2026-01-01-to-2026-03-31.pdf')).toBeTruthy();
    if (onWeb) {
      expect(calls.find((c) => c.path === '/api/user/statements')?.url).toContain('account_id=100200301&from=2026-01-01&to=2026-03-31&format=pdf');
      expect(clicked[0].download).toBe('statement-100200301-2026-01-01-to-2026-03-31.pdf');
    } else {
      expect(Sharing.shareAsync).toHaveBeenCalledWith(
        'file:///cache/statement-100200301-2026-01-01-to-2026-03-31.pdf',
        expect.objectContaining({ mimeType: 'application/pdf', UTI: 'com.adobe.pdf' }),
      );
    }
  });

  it('checks the dates in the app', async () => {
    const { calls } = server(() => fileResponse(CSV, 'text/csv'));
    await openForm();
    fireEvent.changeText(screen.getByTestId('statement-from'), '2026-05-40');
    fireEvent.press(screen.getByTestId('statement-submit'));
    expect(await screen.findByText('Dates must be written as YYYY-MM-DD.')).toBeTruthy();
    fireEvent.changeText(screen.getByTestId('statement-from'), '2026-06-02');
    fireEvent.changeText(screen.getByTestId('statement-to'), '2026-06-01');
    fireEvent.press(screen.getByTestId('statement-submit'));
    expect(await screen.findByText('From must be on or before To.')).toBeTruthy();
    expect(calls.some((c) => c.path === '/api/user/statements')).toBe(false);
    expect(downloadFileAsync).not.toHaveBeenCalled();
  });

  it("a refusal shows the server's sentence; nothing is saved or shared", async () => {
    if (!onWeb) downloadFileAsync.mockRejectedValueOnce(new Error('response has status 404'));
    server(() => jsonResponse(404, { error: 'Account not found', code: 'not_found' }));
    await openForm();
    fireEvent.press(screen.getByTestId('statement-submit'));
    expect(await screen.findByText('Account not found')).toBeTruthy();
    expect(screen.getByTestId('statement-modal')).toBeTruthy();
    if (onWeb) expect(createObjectURL).not.toHaveBeenCalled();
    else expect(Sharing.shareAsync).not.toHaveBeenCalled();
  });

  it('an admin reads the history without the statement button (statements are a customer\u2019s)', async () => {
    await sessionStore.signIn('tok-admin', adminUser);
    mockFetch({
      'GET /api/admin/accounts': () => jsonResponse(200, accounts),
      'GET /api/admin/transactions/history': () => jsonResponse(200, { data: transactions, next_cursor: null }),
    });
    renderScreen(TransactionHistoryScreen);
    await screen.findByText('Salary');
    expect(screen.queryByTestId('statement-open')).toBeNull();
  });
});
