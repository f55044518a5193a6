/**
 * The API as its OpenAPI document describes it (style item 11, Bluesky's
 * way): each call names a path of the generated `paths` (schema.ts), and the
 * path, its parameters, the body and the answer are typed from it, so a
 * wrong path, a missing path parameter or a wrong body does not compile:
 *
 *   client.GET('/api/user/accounts')                      // Promise<Account[]>
 *   client.POST('/api/user/payees', { body: { nickname, account_number } })
 *   client.DELETE('/api/user/payees/{id}', { params: { path: { id } } })
 *
 * The shape is openapi-fetch's and so are the types (its
 * openapi-typescript-helpers); requests go through the app's one fetch
 * wrapper (client.ts: the session's token, the commit position, a 401 signs
 * out, errors as ApiError), which answers the body itself rather than
 * openapi-fetch's {data, error}: an error throws, as TanStack Query wants.
 */
import type { FilterKeys, HasRequiredKeys, PathsWithMethod, SuccessResponseJSON } from 'openapi-typescript-helpers';

import { api, type ApiClient, type QueryValue } from './client';
import type { paths } from './schema';

type Method = 'get' | 'post' | 'put' | 'delete';

/** The operation of a path and method. */
type Operation<P extends keyof paths, M extends Method> = FilterKeys<paths[P], M>;

type ParamsOf<O> = O extends { parameters: infer X } ? X : never;
type PathParams<O> = ParamsOf<O> extends { path: infer A } ? ([A] extends [never] ? never : A) : never;
type QueryParams<O> = ParamsOf<O> extends { query?: infer Q } ? ([Q] extends [never] ? never : Q) : never;
type BodyOf<R> = [R] extends [never] ? never : R extends { content: { 'application/json': infer B } } ? B : never;
type JsonBody<O> = O extends { requestBody?: infer R } ? BodyOf<NonNullable<R>> : never;

/** What a call takes: path parameters (required when the path has any), query, body, headers. */
export type CallInit<O> = ([PathParams<O>] extends [never] ? { params?: { query?: QueryParams<O> } } : { params: { path: PathParams<O>; query?: QueryParams<O> } }) &
  ([JsonBody<O>] extends [never] ? { body?: never } : { body: JsonBody<O> }) & { headers?: Record<string, string> };

/** The JSON a 2xx answers (void for 204). */
export type Answer<O> = [SuccessResponseJSON<O & Record<string | number, unknown>>] extends [never] ? void : SuccessResponseJSON<O & Record<string | number, unknown>>;

type Args<O> = HasRequiredKeys<CallInit<O>> extends never ? [init?: CallInit<O>] : [init: CallInit<O>];

/** '/api/user/payees/{id}' with {id: 7} → '/user/payees/7' (the wrapper adds its base, which ends in /api). */
export function fillPath(path: string, params: Record<string, unknown> | undefined): string {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === null || value === '') throw new Error(`missing path parameter ${name} of ${path}`);
    return encodeURIComponent(String(value));
  });
  return filled.replace(/^\/api(?=\/)/, '');
}

export interface TypedClient {
  GET<P extends PathsWithMethod<paths, 'get'>>(path: P, ...init: Args<Operation<P, 'get'>>): Promise<Answer<Operation<P, 'get'>>>;
  POST<P extends PathsWithMethod<paths, 'post'>>(path: P, ...init: Args<Operation<P, 'post'>>): Promise<Answer<Operation<P, 'post'>>>;
  PUT<P extends PathsWithMethod<paths, 'put'>>(path: P, ...init: Args<Operation<P, 'put'>>): Promise<Answer<Operation<P, 'put'>>>;
  DELETE<P extends PathsWithMethod<paths, 'delete'>>(path: P, ...init: Args<Operation<P, 'delete'>>): Promise<Answer<Operation<P, 'delete'>>>;
  /** The URL of a path, with its parameters (a file download fetches it itself). */
  url<P extends keyof paths>(path: P, params?: { path?: Record<string, unknown>; query?: Record<string, QueryValue> }): string;
}

export function createTypedClient(base: ApiClient): TypedClient {
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE') => (path: string, init?: { params?: { path?: Record<string, unknown>; query?: Record<string, QueryValue> }; body?: unknown; headers?: Record<string, string> }) =>
    base.request(fillPath(path, init?.params?.path), { method, query: init?.params?.query, body: init?.body, headers: init?.headers });
  return {
    GET: call('GET') as TypedClient['GET'],
    POST: call('POST') as TypedClient['POST'],
    PUT: call('PUT') as TypedClient['PUT'],
    DELETE: call('DELETE') as TypedClient['DELETE'],
    url: (path, params) => base.url(fillPath(path as string, params?.path), params?.query),
  };
}

/** The app's typed client. */
export const client = createTypedClient(api);
