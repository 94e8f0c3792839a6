import { raceAbort } from '../../abort.js';
/** The streams and environment a command may use; tests pass fakes. */
export interface OutputStream {
  write(chunk: string): unknown;
  isTTY?: boolean | undefined;
  columns?: number | undefined;
  rows?: number | undefined;
}

export interface CliIO {
  stdout: OutputStream;
  stderr: OutputStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean | undefined };
  env: Readonly<Record<string, string | undefined>>;
  /**
   * The zone times are shown in on a terminal; undefined (a real run): the process's own, which node takes from TZ.
   * Tests inject one instead of changing process.env.TZ.
   */
  timeZone?: string | undefined;
  /**
   * Called by a command that runs until it is stopped (`mock serve`): from then on, a reader of stdout that goes away
   * (`| head -1` after the banner) drops what would still go there, instead of ending the run. Absent in tests.
   */
  letStdoutClose?: (() => void) | undefined;
  /**
   * Called by a command whose work must not end half-way unannounced (`orders batch`): a reader of stdout that goes
   * away interrupts the run as Ctrl-C would (exit 130), so the command stops at a safe point and says how to resume,
   * instead of the process ending at once with exit 0. Absent in tests.
   */
  interruptWhenStdoutCloses?: (() => void) | undefined;
}

/** How much a read of piped or named input may hold, and the sentence for more. */
export interface InputLimit {
  maxBytes: number;
  /** The error to throw once the input passes `maxBytes` (reading stops there). */
  tooLarge(): Error;
  /** The run's: Ctrl-C stops the read (a pipe whose writer never ends, `sleep 600 | topup …`) with its reason. */
  signal?: AbortSignal | undefined;
}

/**
 * Reads a whole stream as text (stdin for `--with-token` and `-`, a named file), at most `limit.maxBytes`: an endless
 * or huge input (`/dev/zero`, `yes |`) stops there with one sentence instead of filling memory.
 */
export async function readAll(input: NodeJS.ReadableStream, limit: InputLimit): Promise<string> {
  return (await readAllBytes(input, limit)).toString('utf8');
}

/** readAll's bytes, undecoded. */
export async function readAllBytes(input: NodeJS.ReadableStream, limit: InputLimit): Promise<Buffer> {
  const { signal } = limit;
  signal?.throwIfAborted();
  const chunks: Buffer[] = [];
  let bytes = 0;
  const iterator = (input as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  try {
    // Each wait for more ends the moment the run is stopped, whatever the stream does with the stop.
    for (let next = await raceAbort(iterator.next(), signal); next.done !== true; next = await raceAbort(iterator.next(), signal)) {
      const chunk = next.value;
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      bytes += buffer.length;
      // Leaving the loop closes the stream: nothing more is read.
      if (bytes > limit.maxBytes) throw limit.tooLarge();
      chunks.push(buffer);
    }
  } catch (error) {
    // Stopped or refused: nothing more is read (a pipe's writer that never ends keeps nothing waiting on it).
    (input as { destroy?(): void }).destroy?.();
    throw error;
  }
  return Buffer.concat(chunks);
}
