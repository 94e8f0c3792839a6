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
 * written. Unlike a FileHandle it is not closed when collected: every opener closes it in a `finally`.
 */
export class OpenFile {
  #closed = false;

  constructor(readonly fd: number) {}

  read(buffer: Uint8Array, offset: number, length: number, position: number | null): Promise<{ bytesRead: number; buffer: Uint8Array }> {
    return settled<number>((done) => read(this.fd, buffer, offset, length, position, done)).then((bytesRead) => ({ bytesRead, buffer }));
  }

  write(data: string | Uint8Array): Promise<{ bytesWritten: number }> {
    const written = (done: Callback<number>) =>
      typeof data === 'string' ? write(this.fd, data, null, 'utf8', done) : write(this.fd, data, 0, data.byteLength, null, done);
    return settled<number>(written).then((bytesWritten) => ({ bytesWritten }));
  }

  /** All of `data`, in as many writes as the system takes. */
  async writeFile(data: string | Uint8Array): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    for (let at = 0; at < bytes.byteLength;) {
      const rest = bytes.subarray(at);
      at += await settled<number>((done) => write(this.fd, rest, 0, rest.byteLength, null, done));
    }
  }

  stat(): Promise<Stats> {
    return settled((done) => fstat(this.fd, done));
  }

  sync(): Promise<void> {
    return settled((done) => fsync(this.fd, (error) => done(error, undefined)));
  }

  datasync(): Promise<void> {
    return settled((done) => fdatasync(this.fd, (error) => done(error, undefined)));
  }

  truncate(length: number): Promise<void> {
    return settled((done) => ftruncate(this.fd, length, (error) => done(error, undefined)));
  }

  /** The file from its current position, as a stream that leaves the file open when it ends. */
  createReadStream(options: { encoding?: BufferEncoding; autoClose?: false }): ReadStream {
    return createReadStream('', { ...options, fd: this.fd, autoClose: false });
  }

  /** Closes the file; a second call does nothing, as a FileHandle's does. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    return settled((done) => close(this.fd, (error) => done(error, undefined)));
  }
}
