import { redactText } from '../../contract/redact.js';
import type { JqProgram } from './jq.js';
import { redactingStream } from './redact.js';
import { jsonText, sanitizeText } from './sanitize.js';
import { plainStyle, type Style } from './plain-style.js';
import { startPagingProgress, type PagingProgress } from './paging-progress.js';
import { startSpinner, type Spinner } from './spinner.js';
import type { CliIO, OutputStream } from './streams.js';
import type { TableView } from './table.js';
import type { View } from './view.js';
import { switchWord } from './switch-word.js';

/** How the global options shape output: set once commander has parsed them. */
export interface OutputMode {
  /** --json: stdout holds only data; chatter and notices stay off stderr too. */
  json: boolean;
  /** --no-color turns colour off. */
  color: boolean;
  /** --no-input: never prompt. */
  input: boolean;
}

/**
 * Everything a command may do with the terminal, in the spirit of gh's IOStreams: the streams, whether each is a
 * terminal, colour, whether a person can be asked, and the kinds of output. Data goes to stdout; everything else to
 * stderr. Commands write only through this, never to process.stdout or process.stderr.
 *
 * Its streams are the one choke point of redaction: every write to stdout and stderr has the tokens this run knows
 * cut word for word, and any token of the sandbox's format (src/contract/redact.ts), so a server that echoes the
 * token (as a username, a token name, an error) cannot get it printed. Only a command whose job is to print a token
 * writes one, inside revealingTokens().
 */
export class IOStreams {
  #mode: OutputMode = { json: false, color: true, input: true };
  #style: Style | undefined;
  #errStyle: Style | undefined;
  #jq: JqProgram | undefined;
  readonly #secrets = new Set<string>();
  #revealing = false;
  #stdout: OutputStream | undefined;
  #stderr: OutputStream | undefined;
  #accessibleSetting: (() => boolean | undefined) | undefined;
  #learnSecrets: (() => Iterable<string>) | undefined;
  /** The given streams, each write redacted; stdin, env and the time zone as given. */
  readonly streams: CliIO;

  constructor(raw: CliIO) {
    this.knowSecret(raw.env.TOPUP_TOKEN);
    const redact = (text: string) => this.redact(text);
    const get = {
      stdout: () => (this.#stdout ??= redactingStream(raw.stdout, (text) => (this.#revealing ? text : redact(text)))),
      stderr: () => (this.#stderr ??= redactingStream(raw.stderr, redact)),
    };
    // Getters: node builds each stdio stream on first touch (main.ts), and most commands never read stdin.
    this.streams = {
      get stdout() {
        return get.stdout();
      },
      get stderr() {
        return get.stderr();
      },
      get stdin() {
        return raw.stdin;
      },
      env: raw.env,
      timeZone: raw.timeZone,
      letStdoutClose: raw.letStdoutClose,
      interruptWhenStdoutCloses: raw.interruptWhenStdoutCloses,
    };
  }

  /** A token this run sends or may be answered with (TOPUP_TOKEN, the profile's, one being logged in): never printed whole. */
  knowSecret(secret: string | undefined): void {
    if (secret !== undefined && secret !== '') this.#secrets.add(secret);
  }

  /**
   * Secrets learned when the first text is redacted, not before: the stored tokens, read from the settings only if
   * the run has not read them already (most commands have; a usage error or `help` has not). `learn` never throws.
   */
  learnSecretsBeforeRedacting(learn: () => Iterable<string>): void {
    this.#learnSecrets = learn;
  }

  /** Text with every secret this run knows, and any token of the sandbox's format, cut. */
  redact(text: string): string {
    const learn = this.#learnSecrets;
    if (learn !== undefined) {
      this.#learnSecrets = undefined;
      for (const secret of learn()) this.knowSecret(secret);
    }
    return redactText(text, [...this.#secrets]);
  }

  /**
   * Runs `print` with stdout unredacted: only for a command whose job is to print a token (`auth token`,
   * `mock fixtures`, the demo tokens `mock serve` lists). stderr stays redacted.
   */
  revealingTokens<T>(print: () => T): T {
    const before = this.#revealing;
    this.#revealing = true;
    let printed: T;
    try {
      printed = print();
    } catch (error) {
      this.#revealing = before;
      throw error;
    }
    // Output through --jq is written when its worker answers: reveal until then.
    if (printed instanceof Promise) return printed.finally(() => (this.#revealing = before)) as T;
    this.#revealing = before;
    return printed;
  }

  get stdout(): OutputStream {
    return this.streams.stdout;
  }

  get stderr(): OutputStream {
    return this.streams.stderr;
  }

  get stdin(): CliIO['stdin'] {
    return this.streams.stdin;
  }

  get env(): CliIO['env'] {
    return this.streams.env;
  }

  setMode(mode: OutputMode): void {
    this.#mode = mode;
  }

  get json(): boolean {
    return this.#mode.json;
  }

  /** stdout is a terminal: human output gets titles, aligned columns and colour. */
  get terminal(): boolean {
    return this.streams.stdout.isTTY === true;
  }

  /** stderr is a terminal: a person is watching, so progress and success messages are worth printing. */
  get stderrTerminal(): boolean {
    return this.streams.stderr.isTTY === true;
  }

  /**
   * Where the person's stored setting is read (`topup config set accessible true`, CliContext), when the
   * environment says nothing. Read on first need only: most runs never ask.
   */
  useAccessibleSetting(read: () => boolean | undefined): void {
    this.#accessibleSetting = read;
  }

  /**
   * Accessible mode (in the spirit of gh's accessible prompter and gcloud's accessibility/screen_reader): nothing is
   * drawn in place (no spinners, no redrawn --watch frames or bars; a line per update instead), and tables on a
   * terminal are labelled lines, which a screen reader reads in order. TOPUP_ACCESSIBLE=1 turns it on and 0 (false,
   * no, off, disabled) off for this run, whatever is stored, with the words `config set accessible` takes (any other
   * value turns it on); without it, the config key `accessible` decides (default off).
   */
  get accessible(): boolean {
    const value = this.streams.env.TOPUP_ACCESSIBLE;
    if (value !== undefined && value !== '') return switchWord(value) ?? true;
    return this.#accessibleSetting?.() ?? false;
  }

  /** Columns of the terminal on stdout; undefined when it is not one. */
  get columns(): number | undefined {
    return this.terminal ? sizeOr(this.streams.stdout.columns, this.streams.env.COLUMNS) : undefined;
  }

  /** Columns of the terminal on stderr (help shown as an error goes there); undefined when it is not one. */
  get stderrColumns(): number | undefined {
    return this.stderrTerminal ? sizeOr(this.streams.stderr.columns, this.streams.env.COLUMNS) : undefined;
  }

  /**
   * Rows of the terminal on stdout; undefined when it is not one, or does not say. A terminal that says 0 by 0 (a
   * pseudo-terminal nobody sized) is taken at LINES and COLUMNS, as less and curses take it.
   */
  get rows(): number | undefined {
    return this.terminal ? sizeOr(this.streams.stdout.rows, this.streams.env.LINES) : undefined;
  }

  /** The zone times are shown in on a terminal: the injected one (tests), else the process's own (TZ). */
  get timeZone(): string | undefined {
    return this.streams.timeZone;
  }

  /**
   * Whether topup's own sandbox answers this run (the embedded one, or an answer that carried its instance header):
   * its times without a zone are UTC, as its OpenAPI description says. Set by the context; read when times are shown.
   */
  answeredBySandbox = false;

  /**
   * The time_zone of the profile whose server this run's requests go to (`topup config set time_zone`), checked; set
   * by the context when it makes that server's client.
   */
  profileServerTimeZone: string | undefined = undefined;

  /**
   * See View.serverTimeZone: UTC for our own sandbox, whatever the environment or a profile says (a zone set for a
   * real server must not shift the sandbox's times); else TOPUP_SERVER_TIME_ZONE (checked before the first request),
   * else the profile's time_zone.
   */
  get serverTimeZone(): string | undefined {
    if (this.answeredBySandbox) return 'UTC';
    const named = this.streams.env.TOPUP_SERVER_TIME_ZONE?.trim();
    return named === undefined || named === '' ? this.profileServerTimeZone : named;
  }

  /** How human output is shaped here: terminal or pipe, colours, time zone. */
  get view(): View {
    return this.#withServerZone({ terminal: this.terminal, style: this.style, timeZone: this.timeZone, width: this.columns });
  }

  /**
   * A view whose serverTimeZone is read when a time is shown, not when the view is made: a command makes its view
   * before its request, and learns who answers from the answer.
   */
  #withServerZone<T extends object>(view: T): T & Pick<View, 'serverTimeZone'> {
    const zone = () => this.serverTimeZone;
    Object.defineProperty(view, 'serverTimeZone', { get: zone, enumerable: true });
    return view;
  }

  /**
   * The view for a table: on a terminal also its width and a measure that counts cells as the terminal draws them
   * (wide characters and emoji take two), loaded only here, so that no other run pays for it.
   */
  async tableView(): Promise<View & TableView> {
    if (!this.terminal) return this.view;
    const { terminalMeasure } = await import('./text-width.js');
    const { terminal, style, timeZone } = this.view;
    return this.#withServerZone({ terminal, style, timeZone, width: this.columns, measure: terminalMeasure, labelled: this.accessible });
  }

  /**
   * How key/value lines on stderr are shaped (a confirmation's summary, a batch's): aligned, in stderr's colours, and
   * on a terminal of a known width wrapped to it, measured as the terminal draws them.
   */
  async stderrFieldsView(): Promise<TableView> {
    const width = this.stderrColumns;
    if (width === undefined) return { terminal: true, style: this.errStyle };
    const { terminalMeasure } = await import('./text-width.js');
    return { terminal: true, style: this.errStyle, width, measure: terminalMeasure };
  }

  /** Prompts only when a person can answer: stdin and stdout are terminals, and neither --no-input nor TOPUP_NO_PROMPT is set. */
  canPrompt(): boolean {
    return this.noPromptReason() === undefined;
  }

  /** Why no prompt may be shown, for a message that says what to pass instead; undefined when one may. */
  noPromptReason(): string | undefined {
    if (!this.#mode.input) return '--no-input is set';
    if (this.streams.env.TOPUP_NO_PROMPT) return 'TOPUP_NO_PROMPT is set';
    if (this.streams.stdin.isTTY !== true || this.streams.stdout.isTTY !== true) return 'there is no terminal to ask on';
    return undefined;
  }

  /**
   * Colour on a terminal, or anywhere with FORCE_COLOR or CLICOLOR_FORCE (`topup orders list | less -R`); never with
   * --no-color or NO_COLOR, which win over forcing, nor with FORCE_COLOR=0. A terminal that says it shows no colour
   * (TERM=dumb), or CLICOLOR=0, has none unless forced, as gh and chalk have it.
   */
  get colorEnabled(): boolean {
    return this.#colorFor(this.terminal);
  }

  /**
   * Colour in what goes to stderr (messages, prompts), decided by stderr as `colorEnabled` is by stdout: `topup … 2>log`
   * at a terminal writes no colour codes into the log, and `topup … >out` still colours its messages.
   */
  get stderrColorEnabled(): boolean {
    return this.#colorFor(this.stderrTerminal);
  }

  #colorFor(terminal: boolean): boolean {
    const env = this.streams.env;
    if (!this.#mode.color || env.NO_COLOR) return false;
    if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return !['0', 'false'].includes(env.FORCE_COLOR);
    if (env.CLICOLOR_FORCE && env.CLICOLOR_FORCE !== '0') return true;
    if (env.TERM === 'dumb' || env.CLICOLOR === '0') return false;
    return terminal;
  }

  /** The style of what goes to stdout; plain until loadStyle() has run: chalk is loaded only when colour is on. */
  get style(): Style {
    return this.#style ?? plainStyle;
  }

  /** The style of what goes to stderr (warnings, notices, errors); plain until loadStyle() has run. */
  get errStyle(): Style {
    return this.#errStyle ?? plainStyle;
  }

  /** Loads chalk if this run is coloured on either stream; called once the global options are known. */
  async loadStyle(): Promise<void> {
    if (this.#style !== undefined || this.#errStyle !== undefined) return;
    const out = this.colorEnabled;
    const err = this.stderrColorEnabled;
    if (!out && !err) return;
    const { createStyle } = await import('./style.js');
    const coloured = createStyle(true);
    if (out) this.#style = coloured;
    if (err) this.#errStyle = coloured;
  }

  /**
   * --jq: checks the expression with jq (a usage error if jq cannot compile it) and from then on sends every JSON
   * output through it. jq (WebAssembly) is loaded here, so a run without --jq never loads it.
   */
  async useJq(expression: string, signal?: AbortSignal): Promise<void> {
    // Asked again for the same run (a group that hands its flags on to a subcommand runs the pre-action hook twice):
    // the program compiled first is the one, not a second beside it.
    if (this.#jq !== undefined) return;
    const { compileJq } = await import('./jq.js');
    // jq's own stderr (its `debug` and `stderr` builtins) is for the person running it: stderr, made safe.
    this.#jq = await compileJq(expression, (text) => this.warn(sanitizeText(text)), { signal, env: this.streams.env });
  }

  /** The --jq program, once useJq() has checked it: for a command that filters what it prints itself (`topup api`). */
  get jq(): JqProgram | undefined {
    return this.#jq;
  }

  /** Data, on stdout. */
  out(text: string): void {
    this.stdout.write(text);
  }

  /**
   * A long list, on stdout: through the pager when stdout is a terminal and the text is taller than it (or its height
   * is unknown), otherwise as it is (io/pager.ts). Resolves once the pager has quit; a Ctrl-C meanwhile waits for the
   * pager to give the terminal back, then rejects with the signal's reason (exit 130, as anywhere else).
   */
  async page(text: string, signal?: AbortSignal): Promise<void> {
    if (!this.terminal || this.#mode.json) return this.out(text);
    const pager = await import('./pager.js');
    const command = pager.pagerCommand(this.streams.env);
    if (command === undefined || !pager.tallerThan(text, this.rows, this.columns)) return this.out(text);
    const shown = await pager.runPager(command, this.#revealing ? text : this.redact(text), this.streams.env);
    if (!shown.started) {
      this.warn(`The pager \`${command}\` could not start; printing directly.`);
      this.out(text);
    } else if (shown.stderr !== '') this.stderr.write(shown.stderr);
    if (signal?.aborted) throw signal.reason;
  }

  /**
   * Exactly the data as JSON on stdout, nothing else; with --jq, jq's results for it instead. Resolves once written:
   * jq runs in a worker and may fail or be stopped, which rejects.
   */
  async writeJson(data: unknown): Promise<void> {
    this.streams.stdout.write(this.#jq === undefined ? `${jsonText(data, 2)}\n` : await this.#jq.run(data));
  }

  /** One record of a stream (NDJSON: one compact JSON document a line); with --jq, jq's results for it instead. */
  async writeJsonLine(data: unknown): Promise<void> {
    this.streams.stdout.write(this.#jq === undefined ? `${jsonText(data)}\n` : await this.#jq.run(data));
  }

  /** What a person must see even with --json (stderr is never data): where the data came from, a risk. */
  warn(text: string): void {
    this.stderr.write(`${text}\n`);
  }

  /** Information for people on stderr (a next step, a total, a hint); silent with --json. */
  notice(text: string): void {
    if (!this.#mode.json) this.stderr.write(`${text}\n`);
  }

  /**
   * "✓ Done" chatter: only when a person watches stderr, and not with --json. A script learns the outcome from the
   * exit code and stdout; its logs need no ticks.
   */
  success(text: string): void {
    if (!this.#mode.json && this.stderrTerminal) this.stderr.write(`${this.errStyle.green('✓')} ${text}\n`);
  }

  /**
   * A spinner on stderr while waiting: on a terminal only, and not with --json (elsewhere it does nothing). In
   * accessible mode a line per update instead, never redrawn.
   */
  progress(text: string): Spinner {
    const shown = !this.#mode.json && this.stderrTerminal;
    return startSpinner(this.stderr, text, {
      enabled: shown && !this.accessible,
      lines: shown && this.accessible,
      // Read at each frame: the terminal may be resized while it spins.
      columns: () => sizeOr(this.streams.stderr.columns, this.streams.env.COLUMNS),
    });
  }

  /**
   * Progress through pages (`transactions --all`, `api --paginate`): "Fetching transactions: page 3 of 7, 250 so far…"
   * on stderr while a person watches, cleared when done; nothing in a pipe or with --json.
   */
  pagingProgress(noun: string): PagingProgress {
    return startPagingProgress(this.progress(`Fetching ${noun}…`), noun);
  }
}

/** The terminal's own size when it says one, else a positive whole number from the environment (LINES, COLUMNS). */
function sizeOr(measured: number | undefined, fromEnv: string | undefined): number | undefined {
  if (measured !== undefined && measured > 0) return measured;
  const given = /^[1-9]\d{0,4}$/.test(fromEnv ?? '') ? Number(fromEnv) : undefined;
  return given ?? measured;
}
