import type { Command } from 'commander';
import type { Profile } from '../../../contract/index.js';
import type { CliContext } from '../../context.js';
import { flagText, orDash, renderRecord, timeText, type RecordField } from '../../io/format.js';
import { recordIn } from '../shared/answer.js';
import type { View } from '../../io/view.js';

export function profileFields(user: Profile, view: View): RecordField[] {
  const fields: RecordField[] = [
    { key: 'id', label: 'id', plain: user.id },
    { key: 'username', label: 'username', plain: user.username, pretty: view.style.bold(orDash(user.username)) },
    { key: 'name', label: 'name', plain: user.name },
    { key: 'email', label: 'email', plain: user.email },
    {
      key: 'token_mode',
      label: 'token mode',
      plain: user.token_mode,
      pretty:
        user.token_mode === 'sandbox'
          ? view.style.yellow('sandbox')
          : user.token_mode === 'production'
            ? view.style.green('production')
            : orDash(user.token_mode),
    },
    {
      key: 'chat_linked',
      label: 'chat',
      plain: flagText(user.chat_linked, false),
      pretty: user.chat_linked ? `linked (user ${orDash(user.chat_user_id)})` : view.style.dim('not linked'),
    },
    { key: 'chat_user_id', label: 'chat user id', plain: user.chat_user_id },
    { key: 'created_at', label: 'member since', plain: timeText(user.created_at, view) },
  ];
  // On a terminal the chat line already shows the id.
  return view.terminal ? fields.filter((f) => f.key !== 'chat_user_id') : fields;
}

export async function runMe(ctx: CliContext): Promise<void> {
  const data = await (await ctx.client()).account.profile({ signal: ctx.signal });
  if (ctx.globals.json) return ctx.io.writeJson(data);
  const view = await ctx.io.tableView();
  ctx.io.out(
    renderRecord(
      profileFields(
        recordIn<Profile>(data, 'user', (text) => ctx.io.notice(text)),
        view,
      ),
      { ...view, title: 'Profile' },
    ),
  );
}

/** `topup me`. */
export function registerMe(program: Command, ctx: CliContext): void {
  program
    .command('me')
    .description("Show the profile of the token's owner")
    .addHelpText(
      'after',
      `
Examples:
  $ topup me
  $ topup me --json | jq -r .user.username`,
    )
    .action(() => runMe(ctx));
}
