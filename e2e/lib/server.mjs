// Starts the real Meridian binary on a free loopback port with a fresh data dir
// (embedded PostgreSQL), waits for /healthz then /readyz, and stops it afterwards.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(new URL('../..', import.meta.url).pathname);
export const DEFAULT_BIN = process.env.MERIDIAN_BIN ? resolve(process.env.MERIDIAN_BIN) : join(ROOT, 'bin', 'meridian');

export function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor200(url, deadline, child, what) {
  let last = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`meridian exited (code ${child.exitCode}) before ${what} answered`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return;
      last = `HTTP ${res.status}`;
    } catch (e) {
      last = e.message;
    }
    await sleep(250);
  }
  throw new Error(`${what} did not answer 200 in time (last: ${last})`);
}

/**
 * @param {{ bin?: string, timeoutMs?: number, env?: Record<string, string> }} [options] env: extra
 *   environment for serve, e.g. { MERIDIAN_SCHEDULER_INTERVAL: '1s' }
 * @returns {Promise<{ baseURL: string, port: number, dataDir: string, logs: () => string, cli: (args: string[]) => Promise<string>, stop: () => Promise<void> }>}
 *   cli: runs a command of the same binary on the same data dir (it attaches to serve's embedded
 *   PostgreSQL), e.g. cli(['user', 'create', ...]); resolves with its standard output.
 */
export async function startServer({ bin = DEFAULT_BIN, timeoutMs = 120_000, env = {} } = {}) {
  if (!existsSync(bin)) {
    throw new Error(`${bin} does not exist: build it first (make build, or go build -o bin/meridian ./cmd/meridian)`);
  }
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'meridian-e2e-'));
  let output = '';
  const child = spawn(bin, ['serve', '--addr', `127.0.0.1:${port}`, '--data-dir', dataDir], {
    cwd: ROOT,
    // Push notifications go nowhere off this machine (a closed local port), whatever a test registers.
    env: { ...process.env, MERIDIAN_LOG_LEVEL: process.env.MERIDIAN_LOG_LEVEL ?? 'warn', MERIDIAN_PUSH_URL: 'http://127.0.0.1:9/push', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk) => {
    output += chunk.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);

  const baseURL = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGINT');
      const exited = new Promise((r) => child.once('exit', r));
      const timer = setTimeout(() => child.exitCode === null && child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    if (!process.env.E2E_KEEP_DATA) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + timeoutMs;
    await waitFor200(`${baseURL}/healthz`, deadline, child, '/healthz');
    await waitFor200(`${baseURL}/readyz`, deadline, child, '/readyz');
  } catch (e) {
    await stop();
    throw new Error(`${e.message}\n--- meridian output ---\n${output.slice(-4000)}`);
  }
  const cli = (args) =>
    new Promise((res, rej) => {
      execFile(bin, [...args, '--data-dir', dataDir], { cwd: ROOT, env: { ...process.env, MERIDIAN_LOG_LEVEL: 'warn', ...env }, timeout: 120_000 }, (err, stdout, stderr) => {
        if (err) rej(new Error(`meridian ${args.join(' ')}: ${err.message}\n${stderr}`));
        else res(stdout);
      });
    });
  return { baseURL, port, dataDir, logs: () => output, cli, stop };
}
