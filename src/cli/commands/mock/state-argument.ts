import { constants } from 'node:buffer';
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors.js';

/**
 * A saved state named on the command line (a file, or `-` for stdin), parsed; anything else is a usage error. At most
 * the longest text node can parse, as a state file (mocks/state/limits.ts MAX_STATE_FILE_BYTES).
 */
export async function readStateArgument(ctx: CliContext, file: string): Promise<unknown> {
  const limit = { maxBytes: constants.MAX_STRING_LENGTH, what: 'a saved state' };
  const text = await (await import('../../io/input-file.js')).readInputFile(file, ctx.io.stdin, limit, ctx.signal);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${file === '-' ? 'stdin' : file} is not JSON; save a state with \`topup mock state save FILE\`.`);
  }
}
