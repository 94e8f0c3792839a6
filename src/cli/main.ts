import { fstatSync, writeSync } from 'node:fs';
import { CommanderError } from 'commander';
import { runComplete } from './completion/run.js';
import { CliContext, type ContextDeps } from './context.js';
import { InterruptedError } from './errors.js';
import { errorKind } from '../errors.js';
import { systemProbe, type ProcessProbe } from '../process-mark.js';
import { errorDetailLines } from './error-hints.js';
import { ExitCode, exitCodeFor } from './exit-codes.js';
import { asksForJson, errorEnvelope } from './io/error-envelope.js';
import { redactSecrets } from './io/redact.js';
import { messageText, sanitizeText } from './io/sanitize.js';
import type { CliIO, OutputStream } from './io/streams.js';
import { buildProgram, namesGroupAlone } from './program.js';
import type { TargetSummary } from './where.js';

/** The hidden command the scripts of `topup completion` call on each Tab: `topup __complete orders show ''`. */
export const COMPLETE_COMMAND = '__complete';

/** Exported so a test can check the bundle's mapping against the errors its lazily loaded chunks make. */
export { exitCodeFor };

/**
 * argv → exit code. The only place that turns errors into exit codes and error output:
 * one sentence on stderr (the error envelope with --json), a stack trace only with --debug.
 */
export async function main(argv: readonly string[], io: CliIO, deps: ContextDeps = {}): Promise<number> {
  const ctx = new CliContext(io, { processes: thisProcess, ...deps }, argv);
  const program = buildProgram(ctx, argv);
  // Not through commander: it would take the global options among the words (--profile NAME) for this run's own.
  if (argv[0] === COMPLETE_COMMAND) {
    await runComplete(ctx, program, argv.slice(1));
    return ExitCode.ok;
  }
  try {
    // `topup` alone, or a group alone (`topup orders`), asks what there is, as `gh` and `gh pr` alone do: the help on
    // stdout, exit 0 (not a usage error).
    const asksWhatThereIs = argv.length === 0 || namesGroupAlone(program, argv);
    await program.parseAsync(asksWhatThereIs ? [...argv, '--help'] : [...argv], { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version end here too; commander has already printed them, or its one-line error.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    if (deps.signal?.aborted) return signalExitCode(deps.signal);
    const code = exitCodeFor(error);
    // Ctrl-C in a prompt ends the run as the user asked: quietly, with no "User force closed the prompt".
    if (code === ExitCode.interrupted) return code;
    reportError(ctx, error, ctx.globals.json || asksForJson(argv) ? await ctx.targetSummary() : undefined);
    return code;
  }
}

/** `target`: where the failed run's requests went, for the --json envelope (a script checks it); undefined before that was known. */
function reportError(ctx: CliContext, error: unknown, target: TargetSummary | undefined): void {
  const err = error instanceof Error ? error : new Error(String(error));
  const details = err as Error & {
    status?: number;
    code?: string;
    fields?: readonly string[];
    retryAfter?: number;
    idempotencyKey?: string;
    resume?: { command: string; rowsNotSent: number };
  };
  // A 401 to a request that carried no token is explained by why it carried none; not the control API's refusal, which
  // asks for the control secret (a control call needs no token), and which says so itself.
  const controlRefusal = typeof details.code === 'string' && details.code.startsWith('CONTROL_SECRET_');
  const reason = exitCodeFor(err) === ExitCode.auth && !controlRefusal ? ctx.missingTokenReason() : undefined;
  // The message may be a server's, or hold what someone typed: never raw to the terminal (stderr also cuts every token
  // this run knows; a value glued to an option is cut here).
  const said = redactSecrets(reason ?? err.message);
  if (ctx.globals.json || asksForJson(ctx.argv)) {
    // As the server (or topup) said it: the envelope's JSON writes every character a terminal acts on as an escape.
    const message = said.trim() === '' ? 'Something went wrong.' : said;
    const kind = errorKind(err) ?? 'failed';
    const ownCode = typeof details.code === 'string' ? details.code : undefined;
    // A server's answer keeps its own code, or none; an error of the CLI's own always has one.
    const code = typeof details.status === 'number' ? ownCode : (ownCode ?? kind.toUpperCase());
    const { fields, retryAfter, idempotencyKey, resume } = details;
    ctx.io.stderr.write(errorEnvelope({ message, code, kind, fields, retryAfter, idempotencyKey, target, resume }));
  } else {
    // Quoted values first: a line break typed into one (a profile name) is escaped there, not taken for the sentence's end.
    const message = messageText(oneSentence(messageText(said)), { multiline: false });
    ctx.io.stderr.write(`${ctx.io.errStyle.red('Error:')} ${message}\n`);
    for (const line of errorDetailLines(details, message)) ctx.io.stderr.write(`${line}\n`);
    // Only when the order may exist after all; repeating a refused request would be refused again.
    if (details.idempotencyKey && maybeCommitted(err))
      ctx.io.stderr.write(`Retry safely with: --idempotency-key ${details.idempotencyKey}\n`);
  }
  // The stack starts with the message, which may be a server's: made safe as the message above is.
  if (ctx.globals.debug && err.stack) ctx.io.stderr.write(`${sanitizeText(redactSecrets(err.stack))}\n`);
}

/**
 * Whether the request may have done its work although the run failed: no answer came (rate limits, the network, a
 * Ctrl-C), a 2xx came whose body could not be used (the server accepted it: a 201 whose answer is cut short), or a
 * redirect that would have turned it into a GET.
 */
function maybeCommitted(error: Error): boolean {
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number' && status >= 200 && status < 300) return true;
  // A POST answered 301, 302 or 303 was not followed as a GET (client/redirects.ts): the POST may have taken effect.
  if (error.name === 'RedirectRefusedError' && (status === 301 || status === 302 || status === 303)) return true;
  const code = exitCodeFor(error);
  return code === ExitCode.rateLimited || code === ExitCode.unavailable || code === ExitCode.interrupted;
}

function oneSentence(message: string): string {
  const line = message.split('\n')[0]!.trim() || 'Something went wrong.';
  return /[.!?]$/.test(line) ? line : `${line}.`;
}

/** This process and a look at others, for the locks commands take (a batch's ledger): /proc is read on first use. */
const thisProcess: ProcessProbe = {
  get own() {
    return systemProbe().own;
  },
  alive: (pid) => systemProbe().alive(pid),
  startOf: (pid) => systemProbe().startOf(pid),
};

/** 128 + the signal's number, as shells report it: SIGTERM → 143, SIGINT (Ctrl-C) → 130. */
function signalExitCode(signal: AbortSignal): ExitCode {
  return (signal.reason as { signal?: string } | undefined)?.signal === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted;
}

/** The process-facing entry: real streams, Ctrl-C → 130, SIGTERM → 143. */
export async function run(argv: readonly string[]): Promise<void> {
  const controller = new AbortController();
  const interrupt = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(signalExitCode(controller.signal));
    controller.abort(new InterruptedError(signal));
  };
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);
  // Getters: node builds each stdio stream on first touch, and most commands never read stdin.
  const written = new Set<NodeJS.WriteStream>();
  const pipes: ClosedPipes = { stdoutMayClose: false, stdoutClosed: false };
  const opened = (stream: NodeJS.WriteStream, fd: 1 | 2) => {
    if (!written.has(stream)) {
      written.add(stream);
      stream.on('error', (error: NodeJS.ErrnoException) => onClosedPipe(error, fd, pipes));
    }
    return stream;
  };
  const stdout = directOrStream(1, () => opened(process.stdout, 1), pipes);
  const stderr = directOrStream(2, () => opened(process.stderr, 2), pipes);
  const io = {
    get stdout() {
      return stdout();
    },
    get stderr() {
      return stderr();
    },
    get stdin() {
      return process.stdin;
    },
    letStdoutClose: () => {
      pipes.stdoutMayClose = true;
    },
    interruptWhenStdoutCloses: () => {
      pipes.stdoutMayClose = true;
      pipes.onStdoutClosed = () => {
        if (!controller.signal.aborted) controller.abort(new InterruptedError('SIGPIPE'));
      };
    },
    env: process.env,
  };
  const code = await main(argv, io, { signal: controller.signal });
  process.exitCode = code;
  if (controller.signal.aborted && (code === ExitCode.interrupted || code === ExitCode.terminated)) process.exit(code);
  // The command is done; an idle keep-alive socket (node's fetch keeps one ref'd) must not hold the process open.
  await Promise.all([...written].map((stream) => new Promise((flushed) => stream.write('', flushed))));
  process.exit(code);
}

/**
 * stdout or stderr when it is a pipe or a file: written straight to its descriptor, as node writes those on Linux
 * anyway (synchronously). Building node's stream object for one (net, the stream classes) cost every command about
 * 7 ms CPU, more than some commands' own work (BENCHMARKS.md). A terminal, or anything else, gets node's stream:
 * colour depth, columns, resize. Nothing in src/cli reads more of a stream than OutputStream (io/streams.ts).
 */
function directOrStream(fd: 1 | 2, stream: () => NodeJS.WriteStream, pipes: ClosedPipes): () => OutputStream {
  let output: OutputStream | undefined;
  return () => (output ??= isPipeOrFile(fd) ? directOutput(fd, stream, pipes) : stream());
}

function isPipeOrFile(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isFile() || stat.isSocket();
  } catch {
    return false;
  }
}

/**
 * Writes all of each chunk before returning. A descriptor that would block (a pipe another process made
 * non-blocking) hands the rest, and every later chunk, to node's stream, which waits for it: the order is kept. A
 * closed pipe ends the command as it does through node's stream (endOnClosedPipe).
 */
function directOutput(fd: 1 | 2, stream: () => NodeJS.WriteStream, pipes: ClosedPipes): OutputStream {
  let fallback: NodeJS.WriteStream | undefined;
  return {
    write(chunk: string): boolean {
      if (fd === 1 && pipes.stdoutClosed) return true;
      if (fallback !== undefined) return fallback.write(chunk);
      const bytes = Buffer.from(chunk);
      let offset = 0;
      try {
        while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') {
          onClosedPipe(error as NodeJS.ErrnoException, fd, pipes);
          return true;
        }
        fallback = stream();
        return fallback.write(bytes.subarray(offset));
      }
      return true;
    },
  };
}

/** Whether the command lets stdout close (letStdoutClose), and whether it has. */
interface ClosedPipes {
  stdoutMayClose: boolean;
  stdoutClosed: boolean;
  /** What the command asked to happen when stdout closes (interruptWhenStdoutCloses); called once. */
  onStdoutClosed?: (() => void) | undefined;
}

/**
 * A reader that stops early (`topup orders list | head -1`) closes the pipe: that ends the command, it is no error.
 * A command that runs until stopped (letStdoutClose) keeps running, and its stdout is dropped from then on.
 */
function onClosedPipe(error: NodeJS.ErrnoException, fd: 1 | 2, pipes: ClosedPipes): void {
  if (fd === 1 && pipes.stdoutMayClose && (error.code === 'EPIPE' || pipes.stdoutClosed)) {
    const first = !pipes.stdoutClosed;
    pipes.stdoutClosed = true;
    if (first) pipes.onStdoutClosed?.();
    return;
  }
  if (error.code !== 'EPIPE') throw error;
  process.exit(typeof process.exitCode === 'number' ? process.exitCode : ExitCode.ok);
}
