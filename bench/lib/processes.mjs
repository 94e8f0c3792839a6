// @ts-check
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BENCH = fileURLToPath(new URL('../', import.meta.url));

/** Variables that would change what topup does; everything else of the caller's environment is kept. */
const TOPUP_VARIABLES = /^(TOPUP_|NO_COLOR$|FORCE_COLOR$)/;

/** This process's environment without topup's own variables, for the topup commands a suite times. */
export function callerEnvironment() {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !TOPUP_VARIABLES.test(name)));
}

/**
 * Starts a bench server script (bench/servers/*.mjs) in its own process. The script reports `{ url, ... }`
 * over IPC once it listens, and answers `{ type: 'rss' }` with its resident set size.
 * @param {string} script
 * @param {object} options
 * @returns {Promise<Record<string, any> & { url: string, pid: number | undefined, memory(): Promise<NodeJS.MemoryUsage>, liveMemory(): Promise<NodeJS.MemoryUsage>, stop(): Promise<void> }>}
 */
export async function startServer(script, options = {}) {
  const child = spawn(process.execPath, ['--expose-gc', `${BENCH}servers/${script}`, JSON.stringify(options)], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  /** @type {Record<string, any> & { url: string }} */
  const ready = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it listened`)));
  });
  child.removeAllListeners('exit');
  return {
    ...ready,
    pid: child.pid,
    /** process.memoryUsage() of the server: rss, heapUsed, heapTotal… in bytes. */
    memory: () => /** @type {Promise<NodeJS.MemoryUsage>} */ (ask(child, { type: 'rss' })),
    /** process.memoryUsage() after a full garbage collection (sandbox server only). */
    liveMemory: () => /** @type {Promise<NodeJS.MemoryUsage>} */ (ask(child, { type: 'live' })),
    stop: () => stopProcess(child),
  };
}

/**
 * Starts any command that serves HTTP and waits until `probeUrl` answers.
 * @param {string} command
 * @param {string[]} args
 * @param {string} probeUrl
 * @param {{ timeoutMs?: number, env?: NodeJS.ProcessEnv }} [options] `env`: the command's whole environment (this one's by default)
 */
export async function startCommand(command, args, probeUrl, { timeoutMs = 60_000, env = process.env } = {}) {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text) => (stderr += text));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} exited with ${child.exitCode}: ${stderr.slice(-500)}`);
    try {
      const response = await fetch(probeUrl);
      await response.arrayBuffer();
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stopProcess(child);
      throw new Error(`${command} did not answer ${probeUrl} within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { pid: child.pid, stop: () => stopProcess(child) };
}

/**
 * Runs a load test from a separate process, so that the generator never shares a core's time with the server's event loop.
 * @param {Parameters<typeof import('./load.mjs').runLoad>[0]} options
 * @returns {Promise<import('./types.js').LoadResult>}
 */
export function runLoadProcess(options) {
  return /** @type {Promise<import('./types.js').LoadResult>} */ (runWorker('load-worker.mjs', options));
}

/**
 * Runs bench/<script> '<options JSON>' and parses its stdout as JSON.
 * @param {string} script
 * @param {object} options
 * @param {string[]} [nodeFlags] flags for node itself (`--expose-gc`)
 * @returns {Promise<any>} what the worker printed: each caller knows its worker's shape
 */
export function runWorker(script, options, nodeFlags = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, `${BENCH}${script}`, JSON.stringify(options)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (text) => (stdout += text));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`${script} exited with ${code}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

/**
 * A port that was free a moment ago, for programs that cannot listen on port 0 and report it.
 * @returns {Promise<number>}
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/**
 * @param {import('node:child_process').ChildProcess} child
 * @param {object} message
 */
function ask(child, message) {
  return new Promise((resolve) => {
    child.once('message', resolve);
    child.send(message);
  });
}

/**
 * @param {import('node:child_process').ChildProcess} child
 * @returns {Promise<void>}
 */
function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
