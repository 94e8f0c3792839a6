import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { registerConfigGet } from './get.js';
import { registerConfigList } from './list.js';
import { registerConfigPath } from './path.js';
import { registerConfigSet } from './set.js';

/** `topup config`: list, get, set and path; the keys and the profile they belong to in keys.ts. */
export function registerConfigCommands(program: Command, ctx: CliContext): void {
  const config = program
    .command('config')
    .description("Show and change settings: the current profile, and a profile's base URL and chat user id")
    .addHelpText(
      'after',
      `
Keys: profile (the current profile), base_url and chat_user_id (of the current profile, or --profile NAME).
Tokens are not config values: use \`topup auth login\`. TOPUP_CONFIG_DIR moves the folder.

Examples:
  $ topup config list
  $ topup config set profile staging
  $ topup config set chat_user_id 700000001
  $ topup config get base_url --profile staging`,
    );

  registerConfigList(config, ctx);
  registerConfigGet(config, ctx);
  registerConfigSet(config, ctx);
  registerConfigPath(config, ctx);
}
