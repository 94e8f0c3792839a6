import type { TargetSummary } from '../where.js';
import { jsonText } from './sanitize.js';

/**
 * The one JSON error shape the CLI prints on stderr with --json: the interface's error envelope, plus the CLI's kind
 * of error (the `kind` of src/errors.ts, which decides the exit code) and the idempotency key.
 */
export interface ErrorEnvelopeParts {
  message: string;
  /**
   * The server's `error.code` when a server answered (left out when it sent none: never invented); for an error of the
   * CLI's own (nothing was answered), the CLI's code.
   */
  code?: string | undefined;
  kind: string;
  fields?: readonly string[] | undefined;
  /** The seconds the server asked to wait (Retry-After), when it said so. */
  retryAfter?: number | undefined;
  idempotencyKey?: string | undefined;
  /** Where the run's requests went, once that was known (never the token): a script can tell which server refused. */
  target?: TargetSummary | undefined;
  /** A run that stopped part way and can go on (`orders batch`): the command that does, and how many rows it has left. */
  resume?: { command: string; rowsNotSent: number } | undefined;
}

export function errorEnvelope(parts: ErrorEnvelopeParts): string {
  const { message, code, kind, fields, retryAfter, idempotencyKey, target, resume } = parts;
  const envelope = {
    success: false,
    message,
    error: {
      ...(code ? { code } : {}),
      kind,
      ...(fields ? { fields: [...fields] } : {}),
      ...(typeof retryAfter === 'number' && Number.isFinite(retryAfter) ? { retry_after: retryAfter } : {}),
    },
    ...(idempotencyKey ? { idempotency_key: idempotencyKey } : {}),
    ...(target ? { target } : {}),
    ...(resume ? { resume_command: resume.command, rows_not_sent: resume.rowsNotSent } : {}),
  };
  return `${jsonText(envelope)}\n`;
}

/** commander's own error text ("error: unknown option '--x'\n(Did you mean --json?)") as one sentence. */
export function commanderSentence(text: string): string {
  const lines = text
    .replace(/^error: /, '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const joined = lines
    .map((line) => line.replace(/^\((.*)\)$/, '$1'))
    .map((line) => (/[.!?]$/.test(line) ? line : `${line}.`))
    .join(' ');
  return joined.charAt(0).toUpperCase() + joined.slice(1);
}

/** Whether the user asked for --json (or --jq, which implies it), before commander has parsed anything (its own errors come before that). */
export function asksForJson(argv: readonly string[]): boolean {
  return asksForJq(argv) || optionWords(argv).includes('--json');
}

/** Whether the run's words ask for --jq (which asks for JSON too), before any `--`. */
export function asksForJq(argv: readonly string[]): boolean {
  return optionWords(argv).some((word) => word === '--jq' || word.startsWith('--jq='));
}

/** The words before `--`: after it, `--json` is an argument. */
function optionWords(argv: readonly string[]): readonly string[] {
  const end = argv.indexOf('--');
  return end === -1 ? argv : argv.slice(0, end);
}
