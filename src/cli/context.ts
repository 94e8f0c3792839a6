import { join } from 'node:path';
import { INSTANCE_HEADER } from '../contract/sandbox-control.js';
import type { ProcessProbe } from '../process-mark.js';
// The client, its base-URL rules and the fetch over node:http are part of the eager bundle, not loaded with import():
// nearly every command makes requests, and as lazy modules they were some 25 small files, each read and compiled on
// its own (about 15 ms of a command against a server, BENCHMARKS.md). node:http itself still loads on first request.
import { createClient, type ClientOptions, type ClientWait, type TopupClient } from '../client/index.js';
import { isLoopbackHost, parseBaseUrl } from '../client/base-url.js';
import { httpFetch } from './http-fetch.js';
import type { EmbeddedSandbox } from './sandbox/embedded.js';
import type { SandboxHome } from './sandbox/served.js';
import { LONG_WAIT_MS, systemClock, type CliClock } from './clock.js';
import { configDir, OFFLINE_STATE_FILE } from './config-dir.js';
import { CliError, UsageError } from './errors.js';
import type { CliIO } from './io/streams.js';
import { IOStreams } from './io/io-streams.js';
import { isKnownTimeZone } from './io/time-text.js';
import type { Prompter } from './prompter.js';
import { Settings } from './settings.js';
import { sandboxFetch } from './sandbox/fetch.js';
import { sanitizeText, sanitizingFetch } from './io/sanitize.js';
import { originOf, resolveTarget, type TargetSpec } from './target.js';
import type { TargetSummary } from './where.js';

/** Which sandbox answers a run that uses the config folder's own: in this process, or served by `topup mock serve`. */
export function embeddedNotice(spec: Extract<TargetSpec, { kind: 'embedded' }>, home: SandboxHome = { kind: 'in-process' }): string {
  const ignored = spec.ignoredEnvToken ? ' (--mock): TOPUP_TOKEN is ignored, the demo sandbox token is used.' : undefined;
  if (home.kind === 'served') {
    const served = `Using the sandbox served at ${home.url} by \`topup mock serve\``;
    return ignored === undefined ? `${served} (pid ${home.pid}, demo sandbox token).` : `${served}${ignored}`;
  }
  if (ignored !== undefined) return `Using the embedded offline sandbox${ignored}`;
  return 'Using the embedded offline sandbox (demo sandbox token). Log in to a real server with `topup auth login`.';
}

/** Waits longer than this are announced on a terminal. */
export { LONG_WAIT_MS };

export function waitNotice(wait: ClientWait): string {
  const seconds = Math.ceil(wait.ms / 1000);
  // A 429 (rate limited) or a 503 (maintenance, overload) may ask for the wait: the status says which.
  const status = wait.status === undefined ? '' : ` (${wait.status}${STATUS_WORDS[wait.status] ?? ''})`;
  if (wait.reason === 'retry-after') return `The server asked to wait${status}; retrying in ${seconds} s.`;
  if (wait.reason === 'backoff') return `The request failed${status}; retrying in ${seconds} s.`;
  return `Keeping to the published rate limit; next request in ${seconds} s.`;
}

/** The words of the statuses a wait most often follows. */
const STATUS_WORDS: Record<number, string> = {
  429: ': rate limited',
  500: ': server error',
  502: ': bad gateway',
  503: ': unavailable',
  504: ': gateway timeout',
};

/** Hooks a command adds to a client's own, called after the --debug ones (`topup api --verbose`). */
export type ClientWatch = Pick<ClientOptions, 'onRequest' | 'onResponse'>;

/** Which client a command asks the context for (CliContext.client); none of these: the target's own. */
export interface ClientChoice {
  /** A server and token other than the target's: `auth login` checks a token before storing it, `auth status` every profile's. */
  server?: { baseUrl: string; token: string; maxRetries?: number } | undefined;
  /** Answers exactly as sent, not made safe for the terminal: for `topup api`, which escapes what it prints itself. */
  exact?: boolean | undefined;
  /** Sees every answer first (`topup doctor` keeps each one whole). */
  wrapFetch?: ((fetch: typeof globalThis.fetch) => typeof globalThis.fetch) | undefined;
  watch?: ClientWatch | undefined;
}

/** Options every command accepts. */
export interface GlobalOptions {
  json: boolean;
  /** --jq EXPR: jq over the --json output; implies json. */
  jq?: string | undefined;
  profile?: string | undefined;
  baseUrl?: string | undefined;
  mock: boolean;
  color: boolean;
  input: boolean;
  debug: boolean;
}

/** Where requests go, with what is needed to send them. */
export type Target =
  | {
      kind: 'embedded';
      spec: Extract<TargetSpec, { kind: 'embedded' }>;
      /** The config folder's sandbox: in this process, or served by `topup mock serve` (then reached at its URL). */
      home: SandboxHome;
      baseUrl: string;
      token: string;
    }
  | { kind: 'remote'; spec: Extract<TargetSpec, { kind: 'remote' }>; baseUrl: string; token: string | undefined };

export interface ContextDeps {
  /** Replaces the global fetch for remote targets (tests). */
  fetch?: typeof globalThis.fetch;
  /** Aborted on Ctrl-C. */
  signal?: AbortSignal;
  /** Replaces the @inquirer prompts (tests). */
  prompter?: Prompter;
  clock?: CliClock;
  /** This process and a look at others (a batch's lock names its owner); main() passes the real ones. */
  processes?: ProcessProbe;
}

/**
 * What a command may use, in the spirit of gh's Factory: `io` for the terminal (io/io-streams.ts), and the
 * dependencies: global options, settings and profiles, the target and its client, the embedded sandbox, the clock,
 * the abort signal and the prompter. Everything heavy (the client, the sandbox, chalk) is created on first use, so
 * `--help` and `--version` load none of it.
 */
export class CliContext {
  #globals: GlobalOptions = { json: false, mock: false, color: true, input: true, debug: false };
  #target: Promise<Target> | undefined;
  #spec: TargetSpec | undefined;
  #client: Promise<TopupClient> | undefined;
  #settings: Settings | undefined;
  #prompter: Promise<Prompter> | undefined;
  #offline: Promise<EmbeddedSandbox> | undefined;
  #home: Promise<SandboxHome> | undefined;
  /** The target once resolved, for what is said after a failure (the --json error envelope's `target`). */
  #resolved: Target | undefined;
  /** Where answers come from has been told (where.ts): once a run, however many clients it makes. */
  #told = false;

  /** The terminal: streams, TTY flags, colour, prompting and the kinds of output (io/io-streams.ts). */
  readonly io: IOStreams;

  constructor(
    streams: CliIO,
    readonly deps: ContextDeps = {},
    /** The words given, for what must be known before commander has parsed them (--json for its own errors). */
    readonly argv: readonly string[] = [],
  ) {
    this.io = new IOStreams(streams);
    // Accessible mode is a person's setting, kept beside the profiles: read from the config file only when asked.
    this.io.useAccessibleSetting(() => this.settings().accessible());
    // A run that never opens the settings (help, a usage error) must still not print a stored token typed by mistake.
    this.io.learnSecretsBeforeRedacting(() => (this.#settings === undefined ? Settings.storedTokensIn(this.configDir) : []));
  }

  setGlobals(given: GlobalOptions): void {
    // --jq filters the --json output, so it asks for that output: exact data, no chatter, errors as JSON.
    const globals = { ...given, json: given.json || given.jq !== undefined };
    this.#globals = globals;
    this.io.setMode({ json: globals.json, color: globals.color, input: globals.input });
  }

  get globals(): GlobalOptions {
    return this.#globals;
  }

  get configDir(): string {
    return configDir(this.io.env);
  }

  get clock(): CliClock {
    return this.deps.clock ?? systemClock;
  }

  /** This process, for locks; without main()'s (a bare context in a test) a lock is only ever held by a live owner. */
  get processes(): ProcessProbe {
    return this.deps.processes ?? { own: { pid: 0 }, alive: () => true, startOf: () => undefined };
  }

  get signal(): AbortSignal | undefined {
    return this.deps.signal;
  }

  prompter(): Promise<Prompter> {
    if (!this.io.canPrompt()) return Promise.reject(new UsageError('Cannot prompt: not a terminal, or --no-input is set.'));
    this.#prompter ??= this.deps.prompter
      ? Promise.resolve(this.deps.prompter)
      : this.io.accessible
        ? import('./accessible-prompter.js').then((m) => m.accessiblePrompter(this.io, this.signal))
        : import('./prompter.js').then((m) => m.inquirerPrompter(this.io, this.signal));
    return this.#prompter;
  }

  settings(): Settings {
    if (this.#settings === undefined) {
      this.#settings = Settings.load(this.configDir);
      // Every stored token is one this run must never print whole, whichever profile a server echoes.
      for (const token of this.#settings.storedTokens()) this.io.knowSecret(token);
      // Profiles broken by a hand-edit are said at once, by every command, whichever profile it uses.
      this.#settings.profileNames();
    }
    return this.#settings;
  }

  /** Where requests would go, without loading the client or the sandbox. */
  targetSpec(): TargetSpec {
    const settings = this.settings();
    this.#spec = resolveTarget({
      mock: this.#globals.mock,
      profileFlag: this.#globals.profile,
      baseUrlFlag: this.#globals.baseUrl,
      env: this.io.env,
      currentProfile: settings.currentProfile(),
      profileNames: () => settings.profileNames(),
      profile: (name) => settings.profile(name),
      token: (name) => settings.token(name),
    });
    if (this.#spec.kind === 'remote') this.io.knowSecret(this.#spec.token);
    return this.#spec;
  }

  /**
   * Why a refused request carried no token, when it carried none: the real cause, which the server's 401 cannot
   * know (a stored token withheld from another server, or no token at all). Undefined when a token was sent.
   */
  missingTokenReason(): string | undefined {
    const spec = this.#spec;
    if (spec === undefined || spec.kind !== 'remote' || spec.token !== undefined) return undefined;
    const origin = originOf(spec.baseUrl);
    const chosen = spec.chosenProfile;
    if (spec.tokenWithheld && chosen !== undefined) {
      return `No token was sent to ${origin}: the stored token of profile ${chosen.name} is sent only to its own server, ${originOf(chosen.baseUrl)}; set TOPUP_TOKEN for ${origin}, or drop ${spec.source}.`;
    }
    // Logging in again into the profile this run used, whichever named it: not into the default one.
    const into = chosen !== undefined && chosen.name !== 'default' ? ` --profile ${chosen.name}` : '';
    return `No token for ${origin}: log in with \`topup auth login --base-url ${origin}${into}\`, or set TOPUP_TOKEN.`;
  }

  target(): Promise<Target> {
    this.#target ??= this.#resolveTarget().then((target) => (this.#resolved = target));
    return this.#target;
  }

  /** Where this run's requests went (origin, profile, token mode), once the target is known; never the token. */
  async targetSummary(): Promise<TargetSummary | undefined> {
    if (this.#resolved === undefined) return undefined;
    return (await import('./where.js')).targetSummary(this.#resolved);
  }

  /**
   * The one way to a client. Without options: the target's, made once per run, its answers made safe for the terminal
   * unless --json. The options ask for another server, exact answers, a fetch that sees answers first, or more hooks.
   */
  client(options: ClientChoice = {}): Promise<TopupClient> {
    if (options.server !== undefined) return this.#clientForServer(options.server);
    if (options.exact === undefined && options.wrapFetch === undefined && options.watch === undefined) {
      this.#client ??= this.#createClient();
      return this.#client;
    }
    return this.#createClient(options.wrapFetch, { exact: options.exact ?? false, watch: options.watch ?? {} });
  }

  /** The config folder's sandbox state, which the embedded sandbox opens and `topup mock serve` serves by default. */
  get sandboxStateFile(): string {
    return join(this.configDir, OFFLINE_STATE_FILE);
  }

  /** The in-process sandbox whose state persists in the config folder between runs; locked only per operation. */
  offlineSandbox(): Promise<EmbeddedSandbox> {
    this.#offline ??= import('./sandbox/embedded.js').then(({ embeddedSandbox }) =>
      embeddedSandbox(this.sandboxStateFile, {
        onNotice: (text) => this.io.warn(this.io.errStyle.yellow(text)),
      }),
    );
    return this.#offline;
  }

  /**
   * Where the embedded target answers (target.ts, rule 5): the sandbox `topup mock serve` serves from the config
   * folder's state when it runs and proves it is that one, else this process's. Looked up once per run.
   */
  sandboxHome(): Promise<SandboxHome> {
    this.#home ??= import('./sandbox/served.js').then(({ locateSandbox }) =>
      locateSandbox(this.sandboxStateFile, {
        fetch: () => this.remoteFetch(),
        signal: this.signal,
        onNotice: (text) => this.io.warn(this.io.errStyle.yellow(text)),
      }),
    );
    return this.#home;
  }

  /** The notice every run on the embedded target prints (with --json too: stderr is never data), naming which one answers. */
  async noticeEmbedded(spec: Extract<TargetSpec, { kind: 'embedded' }>): Promise<SandboxHome> {
    const home = await this.sandboxHome();
    // Fake data must never pass for real.
    this.io.warn(this.io.errStyle.dim(embeddedNotice(spec, home)));
    return home;
  }

  async #resolveTarget(): Promise<Target> {
    const spec = this.targetSpec();
    if (spec.kind === 'embedded') {
      const home = await this.noticeEmbedded(spec);
      if (home.kind === 'served') {
        const { DEMO_TOKEN } = await import('../../mocks/facade/announcement.js');
        return { kind: 'embedded', spec, home, baseUrl: home.url, token: DEMO_TOKEN };
      }
      const sandbox = await this.offlineSandbox();
      return { kind: 'embedded', spec, home, baseUrl: sandbox.baseUrl, token: sandbox.demoToken };
    }
    if (this.settings().credentialsExposed()) {
      this.io.notice(
        this.io.errStyle.yellow(
          `Warning: ${this.settings().credentialsPath} is readable by other users; run: chmod 600 ${this.settings().credentialsPath}`,
        ),
      );
    }
    // A token goes where a profile says: a stored token, or any token to a profile's server.
    const fromProfile = spec.token !== undefined && (spec.tokenSource === 'profile' || spec.source === 'profile');
    const changeable = fromProfile ? this.settings().changeableByOthers() : undefined;
    if (changeable !== undefined) {
      this.io.warn(
        this.io.errStyle.yellow(
          `Warning: other users can write to ${changeable}, so they could send your token to another server; run: chmod go-w ${changeable}`,
        ),
      );
    }
    return { kind: 'remote', spec, baseUrl: spec.baseUrl, token: spec.token };
  }

  /** A client for another server and token: its token known as a secret at once, its answers made safe like the target's. */
  async #clientForServer({ baseUrl, token, ...options }: NonNullable<ClientChoice['server']>): Promise<TopupClient> {
    this.io.knowSecret(token);
    this.#checkServerTimeZone();
    const remote = await this.remoteFetch();
    const fetch = this.#observingSandbox(remote);
    return createClient({
      baseUrl,
      token,
      fetch: this.#globals.json ? fetch : sanitizingFetch(fetch),
      ...this.#clientHooks(),
      ...options,
      clock: this.deps.clock,
    });
  }

  /**
   * The fetch for the config folder's sandbox served at `url` by `topup mock serve`: when that server stops during
   * the run, the run goes on where that sandbox answers then (sandbox/served-or-embedded.ts).
   */
  async #servedFetch(url: string): Promise<typeof globalThis.fetch> {
    const [{ servedOrEmbeddedFetch }, { locateSandbox }, remote] = await Promise.all([
      import('./sandbox/served-or-embedded.js'),
      import('./sandbox/served.js'),
      this.remoteFetch(),
    ]);
    return servedOrEmbeddedFetch({
      servedUrl: url,
      remote,
      // Why an announcement is passed over is no news here: the server just stopped, and the move is said instead.
      relocate: () =>
        locateSandbox(this.sandboxStateFile, { fetch: () => this.remoteFetch(), signal: this.signal, onNotice: () => undefined }),
      embedded: async () => {
        const sandbox = await this.offlineSandbox();
        return { fetch: sandboxFetch(sandbox), origin: new URL(sandbox.baseUrl).origin };
      },
      onMove: (text) => this.io.warn(this.io.errStyle.yellow(text)),
    });
  }

  /** The fetch for requests to a server: the injected one (tests), else fetch over node:http (see http-fetch.ts). */
  async remoteFetch(): Promise<typeof globalThis.fetch> {
    return this.deps.fetch ?? httpFetch;
  }

  /**
   * What the client reports as it goes. --debug: each request (its secrets already redacted by the client), each
   * answer's status and time, each wait. A wait over 2 s is said on a terminal even without --debug, so that a paced
   * or rate-limited command never looks hung.
   */
  #clientHooks(): Pick<ClientOptions, 'onRequest' | 'onResponse' | 'onWait'> {
    const debug = this.#globals.debug;
    const line = (text: string) => this.io.warn(this.io.errStyle.dim(sanitizeText(text, { multiline: false })));
    return {
      onRequest: debug ? (r) => line(`> ${r.method} ${r.url} ${JSON.stringify(r.headers)}`) : undefined,
      onResponse: debug ? (r) => line(`< ${r.status} ${r.method} ${r.url} (${Math.round(r.durationMs)} ms)`) : undefined,
      onWait: (wait) => {
        if (debug) line(`… waiting ${wait.ms} ms (${wait.reason}) before ${wait.request}`);
        else if (wait.ms > LONG_WAIT_MS && this.io.stderrTerminal) this.io.warn(waitNotice(wait));
      },
    };
  }

  /**
   * The zone of a server's times that name none: TOPUP_SERVER_TIME_ZONE, else the time_zone of the profile that serves
   * it (`topup config set time_zone`). Either is refused before a request to the server is made when Intl does not
   * know it (only a server's times use it; help, settings and the embedded sandbox never look at it).
   */
  #checkServerTimeZone(spec?: Extract<TargetSpec, { kind: 'remote' }>): void {
    const zone = this.io.env.TOPUP_SERVER_TIME_ZONE?.trim();
    if (zone !== undefined && zone !== '') {
      if (isKnownTimeZone(zone)) return;
      throw new UsageError(
        `TOPUP_SERVER_TIME_ZONE is ${JSON.stringify(zone.slice(0, 60))}, which is no time zone: name one as Asia/Jakarta or UTC, or unset it.`,
      );
    }
    const stored = spec?.serverTimeZone;
    if (stored === undefined || spec?.profile === undefined) return;
    if (typeof stored === 'string' && isKnownTimeZone(stored)) {
      this.io.profileServerTimeZone = stored;
      return;
    }
    const shown = typeof stored === 'string' ? JSON.stringify(stored.slice(0, 60)) : 'not a text';
    throw new CliError(
      `${this.settings().configPath}: the time_zone of profile '${spec.profile}' is ${shown}, which is no time zone; set it with: topup config set time_zone Asia/Jakarta --profile ${spec.profile} (an empty value clears it).`,
    );
  }

  /**
   * Notes an answer from topup's own sandbox (its instance header): its times without a zone are UTC. Any other
   * server's are shown as sent (View.serverTimeZone), since the interface document names no zone for them.
   */
  #observingSandbox(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
    return async (input, init) => {
      const answer = await fetch(input, init);
      if (answer.headers.has(INSTANCE_HEADER)) this.io.answeredBySandbox = true;
      return answer;
    };
  }

  /**
   * On a terminal, the run says where its answers come from when that is not the current profile's server, and warns
   * when a token that may be a production one is answered by a test server (where.ts). Piped, nothing: a
   * script's stderr stays as it was, and it can read `target` from the --json output instead.
   */
  async #tellingWhere(fetch: typeof globalThis.fetch, target: Target): Promise<typeof globalThis.fetch> {
    if (!this.io.stderrTerminal || this.#told) return fetch;
    const { tellWhere } = await import('./where.js');
    this.#told = true;
    return tellWhere(fetch, target, (text, warning) => this.io.warn(warning ? this.io.errStyle.yellow(text) : this.io.errStyle.dim(text)));
  }

  async #createClient(
    wrapGiven: (fetch: typeof globalThis.fetch) => typeof globalThis.fetch = (fetch) => fetch,
    options: { exact?: boolean; watch?: ClientWatch } = {},
  ): Promise<TopupClient> {
    const target = await this.target();
    // Human output never shows server text raw (io/sanitize.ts); --json shows it exactly, as JSON escapes it.
    const wrap =
      this.#globals.json || options.exact === true ? wrapGiven : (fetch: typeof globalThis.fetch) => wrapGiven(sanitizingFetch(fetch));
    const hooks = withWatch(this.#clientHooks(), options.watch ?? {});
    if (target.kind === 'embedded') {
      this.io.answeredBySandbox = true;
      // The in-process sandbox starts its rate-limit windows over with each request (docs/sandbox.md): pacing would
      // only slow the user down. A served one keeps its windows as a real server does, so its limits are kept as a
      // real server's are: unpaced, an 11th order within the minute met a 429 whose wait the retries cannot outlast.
      const served = target.home.kind === 'served';
      const fetch = served ? await this.#servedFetch(target.baseUrl) : sandboxFetch(await this.offlineSandbox());
      const unpaced = !served || this.io.env.TOPUP_TEST_NO_PACING === '1';
      return createClient({
        baseUrl: target.baseUrl,
        token: target.token,
        fetch: wrap(fetch),
        ...(unpaced ? { pacing: false } : {}),
        ...hooks,
        clock: this.deps.clock,
      });
    }
    // Checked here first, so that a refusal says what a CLI user can do rather than name a library option.
    this.#checkServerTimeZone(target.spec);
    parseBaseUrl(target.baseUrl);
    // A test seam: a sandbox served with --no-rate-limit on this machine, driven by the built binary in seconds.
    const unpaced = this.io.env.TOPUP_TEST_NO_PACING === '1' && isLoopbackHost(new URL(target.baseUrl).hostname);
    return createClient({
      baseUrl: target.baseUrl,
      token: target.token,
      fetch: wrap(await this.#tellingWhere(this.#observingSandbox(await this.remoteFetch()), target)),
      ...(unpaced ? { pacing: false } : {}),
      ...hooks,
      clock: this.deps.clock,
    });
  }
}

/** Both sets of hooks, each called in turn. */
function withWatch(
  hooks: Pick<ClientOptions, 'onRequest' | 'onResponse' | 'onWait'>,
  watch: ClientWatch,
): Pick<ClientOptions, 'onRequest' | 'onResponse' | 'onWait'> {
  const { onRequest, onResponse } = hooks;
  return {
    ...hooks,
    onRequest: onRequest && watch.onRequest ? (request) => (onRequest(request), watch.onRequest!(request)) : (onRequest ?? watch.onRequest),
    onResponse:
      onResponse && watch.onResponse ? (response) => (onResponse(response), watch.onResponse!(response)) : (onResponse ?? watch.onResponse),
  };
}
