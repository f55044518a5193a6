import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, type RenderOptions } from './rtl';
import type { ReactElement, ReactNode } from 'react';
import { SafeAreaProvider } from 'react-native-safe-area-context';

import { Toaster } from '../components/Toaster';
import { NotificationsProvider } from '../state/NotificationsProvider';
import { ThemeProvider } from '../theme';
import { memoryStorage } from './memoryStorage';
import { isDocumented, unknownBodyField } from './requestBodies';

const metrics = {
  frame: { x: 0, y: 0, width: 390, height: 844 },
  insets: { top: 0, left: 0, right: 0, bottom: 0 },
};

/**
 * A query client for tests. gcTime Infinity for queries and mutations: with
 * TanStack's default (5 minutes) every finished query or mutation leaves a
 * garbage-collection timer, and jest waited those 5 minutes after a run.
 */
export function makeQueryClient() {
  return new QueryClient({ defaultOptions: { queries: { retry: false, gcTime: Infinity }, mutations: { retry: false, gcTime: Infinity } } });
}

/** Renders with every app provider and the Toaster (no real sockets). */
export function renderWithProviders(
  ui: ReactElement,
  { queryClient = makeQueryClient(), notifications = true, ...options }: RenderOptions & { queryClient?: QueryClient; notifications?: boolean } = {},
) {
  const noSocket = () => ({ onopen: null, onclose: null, onerror: null, onmessage: null, close: () => undefined });
  function Wrapper({ children }: { children: ReactNode }) {
    return (
      <SafeAreaProvider initialMetrics={metrics}>
        <ThemeProvider storage={memoryStorage({}, { sync: true })}>
          <QueryClientProvider client={queryClient}>
            {notifications ? <NotificationsProvider createSocket={noSocket}>{children}</NotificationsProvider> : children}
            <Toaster />
          </QueryClientProvider>
        </ThemeProvider>
      </SafeAreaProvider>
    );
  }
  return { queryClient, ...render(ui, { wrapper: Wrapper, ...options }) };
}

export function jsonResponse(status: number, body?: unknown): Response {
  const text = body === undefined ? '' : JSON.stringify(body);
  return { ok: status >= 200 && status < 300, status, text: async () => text } as unknown as Response;
}

type Handler = (body: unknown, url: string) => Response | Promise<Response>;

/**
 * A fetch stand-in answering by "METHOD /path" (query string ignored); a
 * handler may return a promise (a never-settling one keeps a screen loading).
 * Records every call. A body with a field its operation does not define
 * answers 400 unknown_field, as the server does (requestBodies.ts); a call
 * to an /api path and method server/openapi.json does not have answers 404.
 */
export function mockFetch(routes: Record<string, Handler>) {
  const calls: Array<{ method: string; path: string; url: string; body: unknown; headers: Record<string, string> }> = [];
  const fn = jest.fn(async (url: string, init: RequestInit = {}) => {
    const method = (init.method ?? 'GET').toUpperCase();
    const path = url.replace(/^https?:\/\/[^/]+/, '').split('?')[0];
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({ method, path, url, body, headers: (init.headers ?? {}) as Record<string, string> });
    const unknown = unknownBodyField(method, path, body);
    if (unknown) return jsonResponse(400, { error: `${unknown} is not a field of this request`, code: 'unknown_field' });
    const handler = routes[`${method} ${path}`];
    // A call the API does not have would answer 404 from the server too: the app must not make it, nor a test answer it.
    if (path.startsWith('/api/') && !isDocumented(method, path)) return jsonResponse(404, { error: `${method} ${path} is not in server/openapi.json`, code: 'not_found' });
    if (!handler) return jsonResponse(404, { error: `no mock for ${method} ${path}` });
    return handler(body, url);
  });
  global.fetch = fn as unknown as typeof fetch;
  return { fn, calls };
}
