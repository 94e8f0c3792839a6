import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { listedProfiles } from '../../settings.js';
import { profileNameFor } from './profile-name.js';

export async function runLogout(ctx: CliContext): Promise<void> {
  const settings = ctx.settings();
  const name = profileNameFor(ctx, settings.currentProfile());
  if (name === undefined) throw new CliError('Not logged in: no profile is current, and the built-in offline sandbox needs no logout.');
  const profile = settings.profile(name);
  if (!(await settings.removeProfile(name))) {
    throw new UsageError(`No profile is named '${name}', so nothing was logged out (${listedProfiles(settings.profileNames())}).`);
  }
  if (ctx.globals.json) return ctx.io.writeJson({ profile: name, base_url: profile?.base_url ?? null, logged_out: true });
  const where = profile === undefined ? '' : ` (${profile.base_url})`;
  ctx.io.success(`Logged out of profile ${name}${where}; its stored token was deleted.`);
  if (profile !== undefined) ctx.io.notice(`The token itself stays valid until you revoke it at ${profile.base_url}/user/api-access.`);
  if (settings.currentProfile() === undefined) {
    const left = settings.profileNames();
    ctx.io.notice(
      left.length > 0
        ? `No profile is current now; pick one with: topup config set profile ${left[0]}`
        : 'Commands use the built-in offline sandbox again.',
    );
  }
}

/** `topup auth logout`. */
export function registerLogout(auth: Command, ctx: CliContext): void {
  auth
    .command('logout')
    .usage('[--profile NAME]')
    .description('Forget a profile and delete its stored token (the current profile unless --profile)')
    .addHelpText(
      'after',
      `
The token stays valid on the server; revoke it on the web site's API-access page.

Examples:
  $ topup auth logout
  $ topup auth logout --profile staging`,
    )
    .action(() => runLogout(ctx));
}
