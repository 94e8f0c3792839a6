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
}

/** Reads all of stdin as text (for `--with-token` and piped input). */
export async function readAll(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
