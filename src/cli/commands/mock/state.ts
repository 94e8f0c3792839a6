import { writeFailure } from '../../../safe-file.js';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { OFFLINE_STATE_FILE } from '../../config-dir.js';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors.js';
import { controlFor } from './control.js';
import { CONTROL_MAX_RESPONSE_BYTES } from '../../sandbox/control.js';
import { readStateArgument } from './state-argument.js';

/** `topup mock state save [FILE]`: the whole state as JSON, to stdout or to a 0600 file written whole or not at all. */
export async function runStateSave(ctx: CliContext, file: string | undefined): Promise<void> {
  const state = await (await controlFor(ctx)).control.saveState().catch((error: unknown) => {
    if ((error as { code?: unknown } | null)?.code !== 'RESPONSE_TOO_LARGE') throw error;
    throw new CliError(
      `The sandbox's state is larger than the ${CONTROL_MAX_RESPONSE_BYTES / 2 ** 20} MiB \`mock state save\` fetches through the control API; a sandbox served with --state FILE keeps its state in FILE (stop it, then copy the file).`,
    );
  });
  if (file === undefined || file === '-') return ctx.io.writeJsonLine(state);
  // As a state file is written: beside it, flushed, then renamed over it.
  const { writeStateFile } = await import('../../../../mocks/facade/serve.js');
  try {
    await writeStateFile(file, state as Parameters<typeof writeStateFile>[1]);
  } catch (error) {
    throw new CliError(writeFailure(file, error));
  }
  ctx.io.success(`Sandbox state saved to ${file}.`);
}

/** `topup mock state load FILE`: replaces the sandbox's state with a saved one (`-` reads stdin). */
export async function runStateLoad(ctx: CliContext, file: string): Promise<void> {
  const snapshot = await readStateArgument(ctx, file);
  await (await controlFor(ctx)).control.loadState(snapshot);
  if (ctx.globals.json) return ctx.io.writeJson({ loaded: true });
  ctx.io.success(`Sandbox state loaded from ${file === '-' ? 'stdin' : file}.`);
}

/**
 * `topup mock state repair [FILE]`: opens a state file (the embedded sandbox's by default) as `mock serve --state FILE
 * --repair` would, and closes it. A file, not a target: a served sandbox holds its file's lock, and is repaired by
 * restarting it with --repair; the embedded one has no server to restart.
 */
export async function runStateRepair(ctx: CliContext, file: string | undefined): Promise<void> {
  const { openPersistentSandbox, SnapshotError, StateLockedError } = await import('../../../../mocks/facade/serve.js');
  const path = file ?? join(ctx.configDir, OFFLINE_STATE_FILE);
  const exists = async (p: string) => (await fs.lstat(p).catch(() => undefined)) !== undefined;
  if (!(await exists(path)) && !(await exists(`${path}.journal`))) {
    if (ctx.globals.json) return ctx.io.writeJson({ file: path, notices: [] });
    return ctx.io.success(`There is no state at ${path}; nothing to repair.`);
  }
  let opened;
  try {
    opened = await openPersistentSandbox(path, { repair: true });
  } catch (error) {
    if (error instanceof StateLockedError) throw new CliError(`${path} is in use by another process${error.byHolder}; stop it first.`);
    if (error instanceof SnapshotError) throw new CliError(error.message);
    throw error;
  }
  await opened.close();
  for (const notice of opened.notices) ctx.io.warn(ctx.io.errStyle.yellow(notice));
  if (ctx.globals.json) return ctx.io.writeJson({ file: path, notices: opened.notices });
  ctx.io.success(opened.notices.length === 0 ? `${path} is whole; nothing to repair.` : `${path} is readable again.`);
}

/** `topup mock state` and its save, load and repair. */
export function registerState(mock: Command, ctx: CliContext): void {
  const state = mock
    .command('state')
    .description('Save the whole sandbox state to a file, or start from a saved one')
    .addHelpText(
      'after',
      `
A saved state is the JSON of GET /__sandbox/state; \`topup mock serve --seed FILE\` starts from one.

Examples:
  $ topup mock state save ci-start.json
  $ topup mock state load ci-start.json
  $ topup mock state save --base-url http://127.0.0.1:4010 | jq .counters`,
    );
  state
    .command('save [file]')
    .description('Write the whole state as JSON to FILE (0600), or to stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ topup mock state save ci-start.json
  $ topup mock state save | jq .counters`,
    )
    .action((file: string | undefined) => runStateSave(ctx, file));
  state
    .command('load <file>')
    .description('Replace the whole state with a saved one (- reads stdin); a bad file changes nothing')
    .addHelpText(
      'after',
      `
Examples:
  $ topup mock state save ci-start.json
  $ topup mock state load ci-start.json
  $ topup mock state save | topup mock state load -`,
    )
    .action((file: string) => runStateLoad(ctx, file));
  state
    .command('repair [file]')
    .description("Make a damaged state file readable again (the embedded sandbox's, or FILE); the damaged journal is kept")
    .addHelpText(
      'after',
      `
A complete journal line that is damaged stops the sandbox rather than losing an order quietly. This keeps a copy
of the journal (FILE.journal.bad-TIME), says which lines it dropped, and moves invoice numbering past them.
For a served sandbox, restart it with: topup mock serve --state FILE --repair

Examples:
  $ topup mock state repair
  $ topup mock state repair ./sandbox.json`,
    )
    .action((file: string | undefined) => runStateRepair(ctx, file));
}
