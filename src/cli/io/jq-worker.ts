import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { CliError } from '../errors.js';
import { jqEngine } from './jq-engine.js';

/** How long one run of a --jq filter may take, and how much memory jq may use, before it is stopped. */
export interface JqLimits {
  timeoutMs: number;
  memoryMb: number;
}

/** The documented defaults (docs/scripting.md, `topup help formatting`); TOPUP_JQ_TIMEOUT_MS and TOPUP_JQ_MEMORY_MB change them. */
export const DEFAULT_JQ_LIMITS: JqLimits = { timeoutMs: 10_000, memoryMb: 256 };

/** The limits for this run: the defaults, or a positive whole number from the environment. */
export function jqLimits(env: Readonly<Record<string, string | undefined>>): JqLimits {
  return {
    timeoutMs: positiveInteger(env.TOPUP_JQ_TIMEOUT_MS, 'TOPUP_JQ_TIMEOUT_MS') ?? DEFAULT_JQ_LIMITS.timeoutMs,
    memoryMb: positiveInteger(env.TOPUP_JQ_MEMORY_MB, 'TOPUP_JQ_MEMORY_MB') ?? DEFAULT_JQ_LIMITS.memoryMb,
  };
}

function positiveInteger(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value <= 0) throw new CliError(`${name} must be a positive whole number, not "${text}".`);
  return value;
}

/** What jq-web answers for one run: its stdout, or its exit status and stderr. */
export type JqAnswer =
  { output: string | undefined; stderr?: string | undefined } | { failure: { exitCode?: number | undefined; stderr?: string | undefined } };

/**
 * The worker's code, as a string so that no separate file has to ship beside the bundle (a single-file build keeps
 * working). It caps jq's WebAssembly memory itself: V8's resourceLimits bound the JS heap only, and jq's heap is a
 * WebAssembly.Memory that would otherwise grow to 2 GB. A refused grow makes jq's malloc fail and jq stop.
 */
const WORKER_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const grow = WebAssembly.Memory.prototype.grow;
let overLimit = false;
WebAssembly.Memory.prototype.grow = function (pages) {
  if (this.buffer.byteLength + pages * 65536 > workerData.memoryBytes) {
    overLimit = true;
    throw new RangeError('over the --jq memory limit');
  }
  return grow.call(this, pages);
};
const loaded = loadJqWeb(workerData.jqWeb);
parentPort.on('message', async ({ input, expression }) => {
  const engine = await loaded;
  let stderr;
  // jq-web hands what jq writes on stderr while succeeding (debug, stderr) to console.warn.
  console.warn = (...args) => { stderr = String(args.at(-1)); };
  try {
    parentPort.postMessage({ output: engine.raw(input, expression, ['-c']), stderr });
  } catch (error) {
    if (overLimit) parentPort.postMessage({ memory: true });
    else parentPort.postMessage({ failure: { exitCode: error && error.exitCode, stderr: (error && error.stderr) || stderr } });
  } finally {
    // Emscripten sets process.exitCode to jq's exit status; a failed filter must not decide how the worker ends.
    process.exitCode = undefined;
  }
});
// jq-web's file (npm package), or its code run here with its WebAssembly handed to it (single-file executable: that
// code was given the name topupJqModule for what jq-web otherwise calls its module with, see scripts/binary/).
function loadJqWeb(engine) {
  if (engine.path !== undefined) return require(engine.path);
  const module = { exports: {} };
  const run = new Function('module', 'exports', 'require', '__filename', '__dirname', 'topupJqModule', engine.source);
  run(module, module.exports, require, '/jq-web/jq.js', '/jq-web', { wasmBinary: engine.wasm });
  return module.exports;
}
`;

/** Why a run ended without jq's answer. */
type Stop = { limit: 'time' | 'memory' } | { aborted: unknown };

/**
 * jq in a worker thread, so that a filter that never ends (`repeat(1)`, `def f: f; f`) or eats memory
 * (`[range(1e9)]`) cannot freeze the CLI: the main thread stays free to hear Ctrl-C and SIGTERM, and stops the worker
 * when a run exceeds its time or memory budget. One worker serves every run of a process (pagination and `watch` run
 * the filter once per value); it starts only when --jq is used. Runs are one at a time, in order.
 */
export class JqWorker {
  #worker: Worker | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(readonly limits: JqLimits) {}

  /** jq's answer for `input`, or a one-sentence error once a limit is reached; rejects with the reason on abort. */
  run(input: string, expression: string, signal?: AbortSignal): Promise<JqAnswer> {
    const next = this.#queue.then(() => this.#runNow(input, expression, signal));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /** Stops the worker; the next run starts a fresh one. */
  stop(): void {
    void this.#worker?.terminate();
    this.#worker = undefined;
  }

  #runNow(input: string, expression: string, signal?: AbortSignal): Promise<JqAnswer> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const worker = this.#start();
    return new Promise<JqAnswer>((resolve, reject) => {
      const finish = (stop: Stop | undefined, answer?: JqAnswer) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (stop === undefined) return resolve(answer!);
        // The run may still be going: only a fresh worker can be trusted with the next one.
        this.stop();
        if ('aborted' in stop) reject(stop.aborted);
        else reject(limitError(stop.limit, this.limits));
      };
      const onMessage = (message: JqAnswer | { memory: true }) =>
        'memory' in message ? finish({ limit: 'memory' }) : finish(undefined, message);
      // A worker past its JS heap limit ends with ERR_WORKER_OUT_OF_MEMORY; any other worker error is jq's end too.
      const onError = (error: Error & { code?: string }) =>
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? finish({ limit: 'memory' })
          : finish({ aborted: new CliError(`jq stopped unexpectedly: ${error.message}`) });
      const onExit = () => finish({ aborted: new CliError('jq stopped unexpectedly.') });
      const onAbort = () => finish({ aborted: signal!.reason });
      const timer = setTimeout(() => finish({ limit: 'time' }), this.limits.timeoutMs);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.postMessage({ input, expression });
    });
  }

  #start(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    useLiftoffOnly();
    const memoryBytes = this.limits.memoryMb * 1024 * 1024;
    const worker = new Worker(WORKER_CODE, {
      eval: true,
      workerData: { jqWeb: jqEngine(), memoryBytes },
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb },
      // jq sees no real environment (jq-web gives it none either), and nothing it prints bypasses the CLI's streams.
      env: {},
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    // The worker never keeps the CLI alive on its own; a pending run keeps it busy through its timer.
    worker.unref();
    this.#worker = worker;
    return worker;
  }
}

/**
 * jq's WebAssembly (2.7 MB) runs on V8's baseline compiler only: optimising its hot functions in the background cost
 * more CPU than a --jq run's whole filter (jq compiles its builtins at every start), about a sixth of the command.
 * V8's flags are the whole process's (nothing else in the CLI runs WebAssembly), and they are part of what a code
 * cache must match: the flag is turned on through the CLI's code cache when it is in use (bin/code-cache.js), which
 * then compiles the modules loaded after from caches made under the same flag.
 */
function useLiftoffOnly(): void {
  const useV8Flags = (globalThis as Record<symbol, unknown>)[Symbol.for('topup.codeCache.useV8Flags')];
  if (typeof useV8Flags === 'function') (useV8Flags as (flag: string) => void)('--liftoff-only');
  else setFlagsFromString('--liftoff-only');
}

function limitError(limit: 'time' | 'memory', limits: JqLimits): CliError {
  if (limit === 'time')
    return new CliError(
      `The --jq expression ran longer than ${seconds(limits.timeoutMs)} on one value and was stopped (TOPUP_JQ_TIMEOUT_MS sets the limit).`,
    );
  return new CliError(
    `The --jq expression needed more than ${limits.memoryMb} MB of memory and was stopped (TOPUP_JQ_MEMORY_MB sets the limit).`,
  );
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
