import {
  close,
  createReadStream,
  fdatasync,
  fstat,
  fsync,
  ftruncate,
  link as linkPath,
  lstat as lstatPath,
  mkdir as mkdirPath,
  open as openPath,
  read,
  rename as renamePath,
  stat as statPath,
  unlink as unlinkPath,
  write,
  type BigIntStats,
  type ReadStream,
  type Stats,
} from 'node:fs';

/*
 * The promise-returning file calls topup's own files need, made on node:fs's callbacks. node:fs/promises would do, but
 * loading it brings its streams, directory, watcher and readline modules with it (ten of node's modules, some 2-3 ms
 * of every offline command's start-up), for the handful of calls a command makes. A leaf: imports nothing of ours.
 */

type Callback<T> = (error: NodeJS.ErrnoException | null, value: T) => void;

/** The callback call `start` makes, as a promise. */
function settled<T>(start: (done: Callback<T>) => void): Promise<T> {
  return new Promise((resolve, reject) =>
    start((error, value) => (error === null || error === undefined ? resolve(value) : reject(error))),
  );
}

export const lstat = (path: string): Promise<Stats> => settled((done) => lstatPath(path, done));
/** lstat with sizes and times as bigints, times to the nanosecond. */
export const lstatExact = (path: string): Promise<BigIntStats> => settled((done) => lstatPath(path, { bigint: true }, done));
export const stat = (path: string): Promise<Stats> => settled((done) => statPath(path, done));
export const unlink = (path: string): Promise<void> => settled((done) => unlinkPath(path, (error) => done(error, undefined)));
export const rename = (from: string, to: string): Promise<void> =>
  settled((done) => renamePath(from, to, (error) => done(error, undefined)));
export const link = (existing: string, name: string): Promise<void> =>
  settled((done) => linkPath(existing, name, (error) => done(error, undefined)));
export const mkdir = (path: string, options: { recursive: true; mode: number }): Promise<void> =>
  settled((done) => mkdirPath(path, options, (error) => done(error, undefined)));

/** Opens `path` with numeric or string `flags`; the file is the caller's to close. */
export async function openFile(path: string, flags: number | string, mode?: number): Promise<OpenFile> {
  return new OpenFile(await settled<number>((done) => openPath(path, flags, mode, done)));
}

/**
 * An open file, as much of node:fs/promises' FileHandle as topup uses, with the same meanings: `read` at a position
 * (null: the current one), `write` once at the current position (the end, under O_APPEND), `writeFile` until all is
 * written. As a FileHandle, it refuses every call once closed (EBADF) rather than reach a file that has since been
 * given the same number, and `close` waits for its streams. Unlike one, it is not closed when collected: every opener
 * closes it in a `finally`.
 */
export class OpenFile {
  #closed = false;
  /** Streams reading it that have not closed yet. */
  readonly #streams = new Set<ReadStream>();

  constructor(readonly fd: number) {}

  /** The descriptor, while the file is open. */
  #open(): number {
    if (this.#closed) throw Object.assign(new Error('EBADF: the file was closed'), { code: 'EBADF' });
    return this.fd;
  }

  async read(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number | null,
  ): Promise<{ bytesRead: number; buffer: Uint8Array }> {
    const fd = this.#open();
    const bytesRead = await settled<number>((done) => read(fd, buffer, offset, length, position, done));
    return { bytesRead, buffer };
  }

  async write(data: string | Uint8Array): Promise<{ bytesWritten: number }> {
    const fd = this.#open();
    const bytesWritten = await settled<number>((done) =>
      typeof data === 'string' ? write(fd, data, null, 'utf8', done) : write(fd, data, 0, data.byteLength, null, done),
    );
    return { bytesWritten };
  }

  /** All of `data`, in as many writes as the system takes. */
  async writeFile(data: string | Uint8Array): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    for (let at = 0; at < bytes.byteLength;) {
      const rest = bytes.subarray(at);
      const fd = this.#open();
      at += await settled<number>((done) => write(fd, rest, 0, rest.byteLength, null, done));
    }
  }

  async stat(): Promise<Stats> {
    const fd = this.#open();
    return settled((done) => fstat(fd, done));
  }

  async sync(): Promise<void> {
    const fd = this.#open();
    return settled((done) => fsync(fd, (error) => done(error, undefined)));
  }

  async datasync(): Promise<void> {
    const fd = this.#open();
    return settled((done) => fdatasync(fd, (error) => done(error, undefined)));
  }

  async truncate(length: number): Promise<void> {
    const fd = this.#open();
    return settled((done) => ftruncate(fd, length, (error) => done(error, undefined)));
  }

  /**
   * The file from its current position, as a stream that never closes it: node's stream closes its descriptor when it
   * is destroyed (a loop over it that stops early), whatever `autoClose` says, and that number may be another file's
   * by then. The file is closed by `close`, which first waits for the stream's read in progress.
   */
  createReadStream(options: { encoding?: BufferEncoding; autoClose?: false }): ReadStream {
    const keepOpen = { read, close: (_fd: number, done: (error: null) => void) => done(null) };
    const stream = createReadStream('', { ...options, fd: this.#open(), autoClose: false, fs: keepOpen });
    this.#streams.add(stream);
    stream.once('close', () => this.#streams.delete(stream));
    return stream;
  }

  /** Closes the file once its streams are done; a second call does nothing, as a FileHandle's does. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all(
      [...this.#streams].map(
        (stream) =>
          new Promise<void>((resolve) => {
            stream.once('close', resolve);
            stream.destroy();
          }),
      ),
    );
    return settled((done) => close(this.fd, (error) => done(error, undefined)));
  }
}
