import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { delimiter, join, resolve as resolvePath } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'topup.js');
const BUILT = join(ROOT, 'dist', 'cli', 'main.cjs');
const SOURCES = ['src', 'mocks', 'package.json', 'tsup.config.ts'];

/**
 * TOPUP_TEST_BINARY=build/topup: these tests run the single-file executable (npm run build:binary) instead of
 * `node bin/topup.js`, with no node on its PATH (.ci/run runs a named set of them so).
 */
export const BINARY = process.env.TOPUP_TEST_BINARY ? resolvePath(ROOT, process.env.TOPUP_TEST_BINARY) : undefined;

/** The command and arguments that run topup with `args`: the built CLI under this node, or the executable. */
export function topupCommand(args: readonly string[]): [command: string, args: string[]] {
  return BINARY === undefined ? [process.execPath, [BIN, ...args]] : [BINARY, [...args]];
}

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

/** Builds dist/ with tsup when it is missing or older than any source, so the suite never tests stale code. */
export function ensureBuilt(): void {
  if (BINARY !== undefined && !existsSync(BINARY)) throw new Error(`TOPUP_TEST_BINARY: ${BINARY} does not exist; run npm run build:binary`);
  let builtAt = 0;
  try {
    builtAt = statSync(BUILT).mtimeMs;
  } catch {
    // Not built yet.
  }
  if (builtAt > Math.max(...SOURCES.map((s) => newestMtime(join(ROOT, s))))) return;
  const build = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsup'), [], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  if (build.status !== 0) throw new Error(`tsup failed (${build.status ?? build.signal}):\n${build.stderr}`);
  // The declarations as `npm run build` leaves them (scripts/finish-declarations.mjs).
  const types = spawnSync(process.execPath, [join(ROOT, 'scripts', 'finish-declarations.mjs')], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (types.status !== 0) throw new Error(`scripts/finish-declarations.mjs failed (${types.status ?? types.signal}):\n${types.stderr}`);
  // tsup's clean removed the code cache (bin/code-cache.js), which the modules just built need to be made again.
  const cache = spawnSync(process.execPath, [join(ROOT, 'scripts', 'code-cache.mjs')], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  if (cache.status !== 0) throw new Error(`scripts/code-cache.mjs failed (${cache.status ?? cache.signal}):\n${cache.stderr}`);
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A clean environment, as `env -i` leaves it plus these three: nothing of the developer's own topup settings, tokens
 * or colour preferences leaks in. For the executable, the PATH holds no node: it must not need one.
 */
export function baseEnv(configDir: string): Record<string, string> {
  return { PATH: BINARY === undefined ? (process.env.PATH ?? '') : pathWithoutNode(), HOME: configDir, TOPUP_CONFIG_DIR: configDir };
}

/** This PATH without every folder that holds a `node`. */
function pathWithoutNode(): string {
  const folders = (process.env.PATH ?? '').split(delimiter).filter((folder) => folder !== '');
  return folders.filter((folder) => !existsSync(join(folder, 'node')) && !existsSync(join(folder, 'node.exe'))).join(delimiter);
}

/** Runs topup (`node bin/topup.js`, or the executable) with `args` to its end, with stdin piped (never a TTY), killed if it outlives `timeoutMs`. */
export function topup(args: string[], options: { env: Record<string, string>; stdin?: string; timeoutMs?: number }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const [command, commandArgs] = topupCommand(args);
    const child = spawn(command, commandArgs, { cwd: ROOT, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

export interface ServedMock {
  url: string;
  accounts: { name: string; token: string }[];
  /** Sends SIGINT and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** `topup mock serve --port 0 --json`, spawned; its first stdout line is the JSON that names the URL. */
export async function serveMock(env: Record<string, string>): Promise<ServedMock> {
  const [command, args] = topupCommand(['mock', 'serve', '--port', '0', '--json']);
  const child: ChildProcessWithoutNullStreams = spawn(command, args, {
    cwd: ROOT,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const firstLine = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mock serve printed nothing within 10 s; stderr: ${stderr}`));
    }, 10_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    void exited.then((code) => reject(new Error(`mock serve exited (${code}) before it listened; stderr: ${stderr}`)));
  });
  const info = JSON.parse(firstLine) as { url: string; accounts: { name: string; token: string }[] };
  return {
    url: info.url,
    accounts: info.accounts,
    stop: async () => {
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
