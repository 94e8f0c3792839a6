import { CliError, UsageError } from '../errors.js';
import { JqWorker, jqLimits, type JqLimits } from './jq-worker.js';
import { escapeJsonText, sanitizeText } from './sanitize.js';

/** What jq-web throws for a non-zero exit: jq's exit status and its stderr. */
interface JqFailure {
  exitCode?: number | undefined;
  stderr?: string | undefined;
}

/** A checked --jq expression, ready to run on each value a command prints. */
export interface JqProgram {
  /** jq's results for `value`, one per line, each ending in a newline: strings raw (made safe), the rest as JSON. */
  run(value: unknown): Promise<string>;
}

/** Where a program runs: the abort signal (Ctrl-C, SIGTERM) and the environment that may change the limits. */
export interface JqOptions {
  signal?: AbortSignal | undefined;
  env?: Readonly<Record<string, string | undefined>>;
}

/** One jq worker per process, reused by every --jq program with the same limits (in-process tests run many). */
let shared: JqWorker | undefined;

function workerFor(limits: JqLimits): JqWorker {
  if (shared?.limits.timeoutMs !== limits.timeoutMs || shared.limits.memoryMb !== limits.memoryMb) {
    shared?.stop();
    shared = new JqWorker(limits);
  }
  return shared;
}

/**
 * Checks `expression` with jq's own compiler and returns it ready to run. jq compiles the program before it reads any
 * input, so running it on empty input compiles it and runs nothing: no `debug` output, no request sent yet.
 * A program jq cannot compile is a usage error naming jq's reason. jq runs in a worker thread (io/jq-worker.ts) with a
 * time and a memory budget, started here, so a run without --jq never starts it.
 */
export async function compileJq(expression: string, report: (stderr: string) => void, options: JqOptions = {}): Promise<JqProgram> {
  const worker = workerFor(jqLimits(options.env ?? {}));
  const program = notAnOption(expression);
  const invoke = async (input: string): Promise<string | undefined> => {
    const answer = await worker.run(input, program, options.signal);
    if ('failure' in answer) throw jqError(answer.failure, expression);
    if (answer.stderr !== undefined) report(answer.stderr);
    return answer.output;
  };
  await invoke('');
  return {
    run: async (value) => {
      const output = (await invoke(JSON.stringify(value) ?? 'null')) ?? '';
      return output === '' ? '' : `${output.split('\n').map(resultLine).join('\n')}\n`;
    },
  };
}

/** One result of `jq -c`: a string printed as its text, any other value as the JSON jq wrote. */
function resultLine(line: string): string {
  if (!line.startsWith('"')) return escapeJsonText(line);
  return sanitizeText(JSON.parse(line) as string);
}

/**
 * The expression as jq-web hands it to jq: as one word of jq's command line, where a word that starts with `-` is one of
 * jq's options (`--help` printed jq's help and exited 0, after the request was sent). jq skips white space before a
 * program, so a space in front makes it a program again, with the same meaning (`-1`, `-.price`).
 */
function notAnOption(expression: string): string {
  return expression.startsWith('-') ? ` ${expression}` : expression;
}

/** What jq's own options look like, as someone used to `jq -r` may type them after --jq. */
const JQ_OPTION = /^-{1,2}[A-Za-z]/;

/** jq's exit 3 is a program it could not compile (a usage error); anything else failed on the data. */
function jqError(failure: JqFailure, expression: string): Error {
  const reason = firstError(failure.stderr ?? '');
  if (failure.exitCode === 3 && JQ_OPTION.test(expression))
    return new UsageError(
      `Invalid --jq expression '${expression}': --jq takes a jq expression, not jq's options (strings already print raw, one result a line).`,
    );
  if (failure.exitCode === 3) return new UsageError(`Invalid --jq expression: ${reason || 'jq could not compile it'}.`);
  return new CliError(`The --jq expression failed on the data: ${reason || `jq exited with status ${failure.exitCode ?? 'unknown'}`}.`);
}

/** jq's first error line without its prefixes: `syntax error, unexpected end of file at line 1`. */
export function firstError(stderr: string): string {
  const line = stderr.split('\n').find((text) => text.trim() !== '') ?? '';
  return line
    .replace(/^jq: error(?: \([^)]*\))*: /, '')
    .replace(/ \(Unix shell quoting issues\?\)/, '')
    .replace(/ at <top-level>, line (\d+):$/, ' at line $1')
    .replace(/[.:]$/, '')
    .trim();
}
