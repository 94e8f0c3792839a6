import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors.js';

/** A saved state named on the command line (a file, or `-` for stdin), parsed; anything else is a usage error. */
export async function readStateArgument(ctx: CliContext, file: string): Promise<unknown> {
  const text = await (await import('../../io/input-file.js')).readInputFile(file, ctx.io.stdin);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${file === '-' ? 'stdin' : file} is not JSON; save a state with \`topup mock state save FILE\`.`);
  }
}
