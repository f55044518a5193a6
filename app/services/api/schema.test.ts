/**
 * app/services/api/schema.ts is generated from server/openapi.json. This test
 * generates it again and fails when the committed file differs: after a
 * change to the API document, run `npm run gen:api` (and fix what the new
 * types break).
 */
import { execFileSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

const ROOT = join(__dirname, '..', '..', '..');

it('is up to date with server/openapi.json (npm run gen:api)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'meridian-schema-'));
  try {
    const out = join(dir, 'schema.ts');
    execFileSync(process.execPath, [join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), join(ROOT, 'server/openapi.json'), '-o', out], {
      cwd: ROOT,
      stdio: 'pipe',
    });
    const fresh = readFileSync(out, 'utf8');
    const committed = readFileSync(join(ROOT, 'app/services/api/schema.ts'), 'utf8');
    expect(committed === fresh ? 'up to date' : 'stale: run npm run gen:api').toBe('up to date');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
