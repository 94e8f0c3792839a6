import { createRequire } from 'node:module';
import { CliError, UsageError } from '../errors.js';
import { escapeJsonText, sanitizeText } from './sanitize.js';

/** jq-web's API once its WebAssembly is compiled: `raw` runs jq as `echo INPUT | jq FLAGS FILTER` would. */
interface JqWeb {
  raw(input: string, filter: string, flags?: string[]): string | undefined;
}

/** What jq-web throws for a non-zero exit: jq's exit status and its stderr. */
interface JqFailure {
  exitCode?: number;
  stderr?: string;
}

/** A checked --jq expression, ready to run on each value a command prints. */
export interface JqProgram {
  /** jq's results for `value`, one per line, each ending in a newline: strings raw (made safe), the rest as JSON. */
  run(value: unknown): string;
}

let loaded: Promise<JqWeb> | undefined;

/**
 * jq itself (jq-web: jq compiled to WebAssembly), loaded on first use only: some 40 ms that no command without --jq
 * pays. Required from node_modules rather than bundled: it finds its .wasm file beside its own script.
 */
function jq(): Promise<JqWeb> {
  loaded ??= createRequire(import.meta.url)('jq-web') as Promise<JqWeb>;
  return loaded;
}

/**
 * Checks `expression` with jq's own compiler and returns it ready to run. jq compiles the program before it reads any
 * input, so running it on empty input compiles it and runs nothing: no `debug` output, no request sent yet.
 * A program jq cannot compile is a usage error naming jq's reason.
 */
export async function compileJq(expression: string, report: (stderr: string) => void): Promise<JqProgram> {
  const engine = await jq();
  invoke(engine, '', expression, report);
  return {
    run: (value) => {
      const output = invoke(engine, JSON.stringify(value) ?? 'null', expression, report) ?? '';
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
 * Runs jq once, containing jq-web's side effects: Emscripten sets process.exitCode to jq's exit status (a failed filter
 * must not decide how topup exits), and what jq writes on stderr while succeeding (`debug`, `stderr`) jq-web hands to
 * console.warn, which would bypass the CLI's streams: it goes to `report` instead.
 */
function invoke(engine: JqWeb, input: string, expression: string, report: (stderr: string) => void): string | undefined {
  const exitCode = globalThis.process.exitCode;
  const { warn } = console;
  let stderr: string | undefined;
  console.warn = (...args: unknown[]) => {
    // jq-web: console.warn('%cstderr%c: %c%s', …styles, stderr).
    stderr = String(args.at(-1));
  };
  try {
    return engine.raw(input, expression, ['-c']);
  } catch (error) {
    throw jqError(error as JqFailure);
  } finally {
    console.warn = warn;
    globalThis.process.exitCode = exitCode;
    if (stderr !== undefined) report(stderr);
  }
}

/** jq's exit 3 is a program it could not compile (a usage error); anything else failed on the data. */
function jqError(failure: JqFailure): Error {
  const reason = firstError(failure.stderr ?? '');
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
