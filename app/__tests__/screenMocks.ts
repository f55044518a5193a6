import type { ReactElement } from 'react';

import type { User } from '../services/api/types';
import { jsonResponse, makeQueryClient, renderWithProviders } from './testUtils';

export const adminUser: User = {
  id: 1,
  full_name: 'Ada Admin',
  email: 'admin@meridian.test',
  phone_number: '+15550001',
  role: 'Admin',
  is_active: true,
  created_at: '2026-01-01T00:00:00Z',
};

export const customerUser: User = { ...adminUser, id: 2, full_name: 'Alice Smith', email: 'alice@meridian.test', role: 'User' };

type Handler = (body: unknown, url: string) => Response | Promise<Response>;

/**
 * A fetch stand-in answering by "METHOD /path" (query string ignored); handlers may
 * return a promise (a never-settling one keeps a screen loading). Records every call.
 */
export function fakeServer(routes: Record<string, Handler>) {
  const calls: Array<{ method: string; path: string; url: string; body: unknown }> = [];
  const fn = jest.fn(async (url: string, init: RequestInit = {}) => {
    const method = (init.method ?? 'GET').toUpperCase();
    const path = url.replace(/^https?:\/\/[^/]+/, '').split('?')[0];
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({ method, path, url, body });
    const handler = routes[`${method} ${path}`];
    if (!handler) return jsonResponse(404, { error: `no mock for ${method} ${path}` });
    return handler(body, url);
  });
  global.fetch = fn as unknown as typeof fetch;
  return { fn, calls };
}

/** A promise that never settles: the request stays in flight. */
export const pending = () => new Promise<Response>(() => undefined);

/** A query client whose mutations leave no garbage-collection timer behind (Jest exits promptly). */
export function testQueryClient() {
  const client = makeQueryClient();
  client.setDefaultOptions({
    ...client.getDefaultOptions(),
    mutations: { ...client.getDefaultOptions().mutations, gcTime: Infinity },
  });
  return client;
}

/** renderWithProviders with testQueryClient(). */
export function renderScreen(ui: ReactElement, options: { notifications?: boolean } = {}) {
  return renderWithProviders(ui, { queryClient: testQueryClient(), ...options });
}
