import { join } from 'node:path';
import type { TopupClient } from '../client/index.js';
import type { Sandbox } from '../../mocks/sandbox.js';
import { configDir, OFFLINE_STATE_FILE } from './config-dir.js';
import type { CliIO } from './io/streams.js';
import { createStyle, type Style } from './io/style.js';

/** Options every command accepts. */
export interface GlobalOptions {
  json: boolean;
  profile?: string | undefined;
  baseUrl?: string | undefined;
  mock: boolean;
  color: boolean;
  input: boolean;
  debug: boolean;
}

/** Where requests go: the embedded offline sandbox, or a server at a base URL. */
export type Target =
  | { kind: 'embedded'; sandbox: Sandbox; token: string }
  | { kind: 'remote'; baseUrl: string; token: string | undefined };

export interface ContextDeps {
  /** Replaces the global fetch for remote targets (tests). */
  fetch?: typeof globalThis.fetch;
  signal?: AbortSignal;
}

/**
 * What a command may use. Everything heavy (the client, the sandbox, chalk) is created on first use,
 * so `--help` and `--version` load none of it.
 */
export class CliContext {
  #globals: GlobalOptions = { json: false, mock: false, color: true, input: true, debug: false };
  #style: Style | undefined;
  #target: Promise<Target> | undefined;
  #client: Promise<TopupClient> | undefined;

  constructor(
    readonly io: CliIO,
    readonly deps: ContextDeps = {},
  ) {}

  setGlobals(globals: GlobalOptions): void {
    this.#globals = globals;
  }

  get globals(): GlobalOptions {
    return this.#globals;
  }

  /** Human output goes to a terminal: titles, aligned columns, colour. */
  get terminal(): boolean {
    return this.io.stdout.isTTY === true;
  }

  get style(): Style {
    this.#style ??= createStyle(this.#globals.color && this.terminal && !this.io.env.NO_COLOR);
    return this.#style;
  }

  get configDir(): string {
    return configDir(this.io.env);
  }

  out(text: string): void {
    this.io.stdout.write(text);
  }

  /** Exactly the data as JSON on stdout, nothing else. */
  json(data: unknown): void {
    this.io.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  }

  /** Status for people, on stderr; silent with --json. */
  notice(text: string): void {
    if (!this.#globals.json) this.io.stderr.write(`${text}\n`);
  }

  target(): Promise<Target> {
    this.#target ??= this.#resolveTarget();
    return this.#target;
  }

  client(): Promise<TopupClient> {
    this.#client ??= this.#createClient();
    return this.#client;
  }

  /** The in-process sandbox whose state persists in the config folder between runs. */
  async offlineSandbox(options: { fresh?: boolean } = {}): Promise<Sandbox> {
    const { openOfflineSandbox } = await import('./offline-sandbox.js');
    return openOfflineSandbox(join(this.configDir, OFFLINE_STATE_FILE), options);
  }

  async #resolveTarget(): Promise<Target> {
    const env = this.io.env;
    const baseUrl = this.#globals.mock ? undefined : (this.#globals.baseUrl ?? env.TOPUP_BASE_URL);
    if (baseUrl === undefined) {
      const sandbox = await this.offlineSandbox();
      const demo = sandbox.fixtures().accounts.find((a) => a.name === 'demo')!;
      this.notice(this.style.dim('Using the embedded offline sandbox (demo sandbox token). Log in to a real server with `topup auth login`.'));
      return { kind: 'embedded', sandbox, token: demo.token };
    }
    return { kind: 'remote', baseUrl, token: env.TOPUP_TOKEN };
  }

  async #createClient(): Promise<TopupClient> {
    const [{ createClient }, target] = await Promise.all([import('../client/index.js'), this.target()]);
    const onRequest = this.#globals.debug
      ? (r: { method: string; url: string; headers: Record<string, string> }) => this.io.stderr.write(`${this.style.dim(`> ${r.method} ${r.url} ${JSON.stringify(r.headers)}`)}\n`)
      : undefined;
    if (target.kind === 'embedded') {
      // Offline, pacing would only slow the user down: the sandbox's limits still answer 429 if exceeded.
      return createClient({ baseUrl: target.sandbox.baseUrl, token: target.token, fetch: target.sandbox.fetch, pacing: false, onRequest });
    }
    return createClient({ baseUrl: target.baseUrl, token: target.token, fetch: this.deps.fetch, onRequest });
  }
}
