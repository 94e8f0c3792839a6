import type { JqProgram } from './jq.js';
import { jsonText, sanitizeText } from './sanitize.js';
import { plainStyle, type Style } from './plain-style.js';
import { startSpinner, type Spinner } from './spinner.js';
import type { CliIO, OutputStream } from './streams.js';

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
 */
export class IOStreams {
  #mode: OutputMode = { json: false, color: true, input: true };
  #style: Style | undefined;
  #jq: JqProgram | undefined;

  constructor(readonly streams: CliIO) {}

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

  /** Columns of the terminal on stdout; undefined when it is not one. */
  get columns(): number | undefined {
    return this.terminal ? this.streams.stdout.columns : undefined;
  }

  /** Prompts only when a person can answer: stdin and stdout are terminals and --no-input is not set. */
  canPrompt(): boolean {
    return this.#mode.input && this.streams.stdin.isTTY === true && this.streams.stdout.isTTY === true;
  }

  get colorEnabled(): boolean {
    return this.#mode.color && this.terminal && !this.streams.env.NO_COLOR;
  }

  /** Plain until loadStyle() has run: chalk is loaded only when colour is on. */
  get style(): Style {
    return this.#style ?? plainStyle;
  }

  /** Loads chalk if this run is coloured; called once the global options are known. */
  async loadStyle(): Promise<void> {
    if (this.#style !== undefined || !this.colorEnabled) return;
    const { createStyle } = await import('./style.js');
    this.#style = createStyle(true);
  }

  /**
   * --jq: checks the expression with jq (a usage error if jq cannot compile it) and from then on sends every JSON
   * output through it. jq (WebAssembly) is loaded here, so a run without --jq never loads it.
   */
  async useJq(expression: string): Promise<void> {
    const { compileJq } = await import('./jq.js');
    // jq's own stderr (its `debug` and `stderr` builtins) is for the person running it: stderr, made safe.
    this.#jq = await compileJq(expression, (text) => this.warn(sanitizeText(text)));
  }

  /** The --jq program, once useJq() has checked it: for a command that filters what it prints itself (`topup api`). */
  get jq(): JqProgram | undefined {
    return this.#jq;
  }

  /** Data, on stdout. */
  out(text: string): void {
    this.streams.stdout.write(text);
  }

  /** Exactly the data as JSON on stdout, nothing else; with --jq, jq's results for it instead. */
  writeJson(data: unknown): void {
    this.streams.stdout.write(this.#jq === undefined ? `${jsonText(data, 2)}\n` : this.#jq.run(data));
  }

  /** One record of a stream (NDJSON: one compact JSON document a line); with --jq, jq's results for it instead. */
  writeJsonLine(data: unknown): void {
    this.streams.stdout.write(this.#jq === undefined ? `${jsonText(data)}\n` : this.#jq.run(data));
  }

  /** What a person must see even with --json (stderr is never data): where the data came from, a risk. */
  warn(text: string): void {
    this.streams.stderr.write(`${text}\n`);
  }

  /** Information for people on stderr (a next step, a total, a hint); silent with --json. */
  notice(text: string): void {
    if (!this.#mode.json) this.streams.stderr.write(`${text}\n`);
  }

  /**
   * "✓ Done" chatter: only when a person watches stderr, and not with --json. A script learns the outcome from the
   * exit code and stdout; its logs need no ticks.
   */
  success(text: string): void {
    if (!this.#mode.json && this.stderrTerminal) this.streams.stderr.write(`${this.style.green('✓')} ${text}\n`);
  }

  /** A spinner on stderr while waiting: on a terminal only, and not with --json (elsewhere it does nothing). */
  progress(text: string): Spinner {
    return startSpinner(this.streams.stderr, text, { enabled: !this.#mode.json && this.stderrTerminal });
  }
}
