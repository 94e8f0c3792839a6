import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RegisterScope } from '../../register-scope.js';
import { registerConfigGet } from './get.js';
import { registerConfigList } from './list.js';
import { registerConfigPath } from './path.js';
import { registerConfigSet } from './set.js';

/** `topup config`: list, get, set and path; the keys and the profile they belong to in keys.ts. */
export function registerConfigCommands(program: Command, ctx: CliContext, scope: RegisterScope = 'all'): void {
  const config = program
    .command('config')
    .description("Show and change settings: the current profile, a profile's base URL and chat user id, and accessible mode")
    .addHelpText(
      'after',
      `
Keys: profile (the current profile), base_url and chat_user_id (of the current profile, or --profile NAME),
and accessible (for every profile: true for screen readers, no spinners or redraws, tables as labelled lines,
prompts as plain lines; TOPUP_ACCESSIBLE=1 or 0 in the environment overrides it).
Tokens are not config values: use \`topup auth login\`. TOPUP_CONFIG_DIR moves the folder.

Examples:
  $ topup config list
  $ topup config set profile staging
  $ topup config set chat_user_id 700000001
  $ topup config set accessible true
  $ topup config get base_url --profile staging`,
    );
  if (scope === 'top') return;

  registerConfigList(config, ctx);
  registerConfigGet(config, ctx);
  registerConfigSet(config, ctx);
  registerConfigPath(config, ctx);
}
