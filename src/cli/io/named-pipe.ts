import type { Socket } from 'node:net';

/**
 * A named pipe (mkfifo, bash's `<(make-rows)`) opened for reading as node reads a pipe on stdin: on the event loop, so
 * Ctrl-C stops the read. Read as a file, node would open and read it on a thread of its pool, blocked until a writer
 * comes and writes, and a process waits for its pool's threads as it exits: no Ctrl-C, nor a second one, could end it.
 *
 * Opening still waits for a writer, on such a thread; a stop while it waits opens the pipe's other end for a moment,
 * which lets that thread go, and rejects with the signal's reason. An error of the opening (a path that went away, no
 * permission) is node's own, for the caller to word.
 */
export async function openNamedPipe(path: string, signal?: AbortSignal): Promise<Socket> {
  signal?.throwIfAborted();
  const fs = await import('node:fs');
  const fd = await new Promise<number>((resolve, reject) => {
    const release = () =>
      fs.open(path, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK, (error, writer) => {
        if (error === null) fs.close(writer, () => undefined);
      });
    signal?.addEventListener('abort', release, { once: true });
    fs.open(path, fs.constants.O_RDONLY, (error, reader) => {
      signal?.removeEventListener('abort', release);
      if (error !== null) return reject(error);
      if (signal?.aborted === true) {
        fs.close(reader, () => undefined);
        return reject(signal.reason as Error);
      }
      resolve(reader);
    });
  });
  const { Socket } = await import('node:net');
  try {
    return new Socket({ fd, readable: true, writable: false });
  } catch (error) {
    // No longer a pipe (the path was replaced after it was looked at): node cannot read it as one.
    fs.close(fd, () => undefined);
    throw error;
  }
}

/** Whether `path` names a named pipe now (false when it cannot be looked at: the read reports that). */
export async function isNamedPipe(path: string): Promise<boolean> {
  const { stat } = await import('node:fs/promises');
  return stat(path).then(
    (stats) => stats.isFIFO(),
    () => false,
  );
}
