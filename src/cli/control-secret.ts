import { CONTROL_SECRET_ENV } from '../contract/sandbox-control.js';
import { UsageError } from './errors.js';
import { FileTooLargeError, openToRead, readOpened, UnsafeFileError } from '../safe-file.js';

/** A secret longer than this is no secret file but something else named by mistake. */
const MAX_SECRET_BYTES = 4_096;

/**
 * The control secret of `topup mock serve`: from --control-secret-file, else from TOPUP_SANDBOX_CONTROL_SECRET, else
 * none. Never from an argument: other users of the machine can read a process's command line.
 */
export async function serveControlSecret(
  file: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  if (file !== undefined) return readControlSecretFile(file);
  return controlSecretFromEnv(env);
}

/** The secret the CLI's control commands send (TOPUP_SANDBOX_CONTROL_SECRET), or undefined when it is unset or empty. */
export function controlSecretFromEnv(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const secret = env[CONTROL_SECRET_ENV]?.trim();
  return secret === undefined || secret === '' ? undefined : headerSafe(secret, CONTROL_SECRET_ENV);
}

/** It travels in a header: visible ASCII only, so that it is sent and compared as typed. */
function headerSafe(secret: string, source: string): string {
  if (!/^[\x21-\x7e]+$/.test(secret))
    throw new UsageError(`The control secret in ${source} must be visible ASCII characters without spaces.`);
  return secret;
}

/**
 * Reads a control secret file that only its owner can read (mode 0600 or stricter): opened without following a
 * symlink, and checked on the opened file itself, so that nothing can swap it between the check and the read.
 */
export async function readControlSecretFile(path: string): Promise<string> {
  let handle;
  try {
    handle = await openToRead(path);
  } catch (error) {
    if (error instanceof UnsafeFileError && error.reason === 'it is a symbolic link')
      throw new UsageError(`The control secret file ${path} is a symbolic link; name the file itself.`);
    if (error instanceof UnsafeFileError) throw new UsageError(`The control secret file ${path} is not a regular file.`);
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`The control secret file ${path} cannot be read (${code ?? 'unknown error'}).`);
  }
  if (handle === undefined) throw new UsageError(`The control secret file ${path} does not exist.`);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new UsageError(`The control secret file ${path} is not a regular file.`);
    if ((stats.mode & 0o077) !== 0)
      throw new UsageError(
        `The control secret file ${path} can be read by others (mode ${(stats.mode & 0o777).toString(8).padStart(4, '0')}); make it private with chmod 600.`,
      );
    const secret = (
      await readOpened(handle, path, MAX_SECRET_BYTES).catch((error: unknown) => {
        if (error instanceof FileTooLargeError)
          throw new UsageError(`The control secret file ${path} is larger than ${MAX_SECRET_BYTES} bytes.`);
        throw error;
      })
    )
      .toString('utf8')
      .trim();
    if (secret === '') throw new UsageError(`The control secret file ${path} is empty.`);
    return headerSafe(secret, path);
  } finally {
    await handle.close();
  }
}
