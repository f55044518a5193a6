/**
 * The fields each request body may hold, read from server/openapi.json: the
 * server refuses a field its operation does not define (400 unknown_field,
 * server/fields.go), so the tests' fetch stand-in refuses it too, and a
 * screen that sent one fails its test as it would fail against the server.
 */
type Schema = { properties?: Record<string, unknown> };
type Operation = { requestBody?: { content?: { 'application/json'?: { schema?: { $ref?: string } } } } };
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

const doc = require('../../server/openapi.json') as Doc;

export const requestBodies: Array<{ method: string; pattern: RegExp; fields: Set<string> }> = [];
/** Every operation of the document, body or not. */
const operations: Array<{ method: string; pattern: RegExp }> = [];
for (const [path, ops] of Object.entries(doc.paths)) {
  const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
  for (const [method, op] of Object.entries(ops)) {
    if (!/^(get|post|put|patch|delete)$/.test(method)) continue;
    operations.push({ method: method.toUpperCase(), pattern });
    const ref = op?.requestBody?.content?.['application/json']?.schema?.$ref;
    if (!ref) continue;
    const schema = doc.components.schemas[ref.split('/').pop() as string];
    requestBodies.push({ method: method.toUpperCase(), pattern, fields: new Set(Object.keys(schema?.properties ?? {})) });
  }
}

/** The first field of body that the operation at "METHOD path" does not define, if any. */
export function unknownBodyField(method: string, path: string, body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const op = requestBodies.find((r) => r.method === method && r.pattern.test(path));
  if (!op) return undefined;
  return Object.keys(body).find((k) => !op.fields.has(k));
}

/** Whether "METHOD path" is an operation of server/openapi.json (an API call the server does not document is a test's mistake). */
export function isDocumented(method: string, path: string): boolean {
  return operations.some((o) => o.method === method && o.pattern.test(path));
}
