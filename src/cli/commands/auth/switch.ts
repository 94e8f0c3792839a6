import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';

/**
 * `topup auth switch`: makes another profile the current one. --profile names it; without it, a terminal gets a
 * list to pick from (the prompter), and anything else is a usage error: a script must say which.
 */
export async function runSwitch(ctx: CliContext): Promise<void> {
  const settings = ctx.settings();
  const names = settings.profileNames();
  if (names.length === 0) throw new CliError('There are no profiles to switch to; log in with `topup auth login`.');
  const current = settings.currentProfile();
  const name = ctx.globals.profile ?? (await pick(ctx, names, current));
  if (settings.profile(name) === undefined)
    throw new UsageError(
      `No profile is named '${name}' (profiles: ${names.join(', ')}); log in with \`topup auth login --profile ${name}\`.`,
    );
  await settings.setCurrentProfile(name);
  const baseUrl = settings.profile(name)!.base_url;
  if (ctx.globals.json) await ctx.io.writeJson({ profile: name, base_url: baseUrl, previous: current ?? null });
  else
    ctx.io.success(
      name === current ? `Profile ${name} (${baseUrl}) was already the current one.` : `Switched to profile ${name} (${baseUrl}).`,
    );
  const envProfile = ctx.io.env.TOPUP_PROFILE;
  if (envProfile && envProfile !== name)
    ctx.io.notice(ctx.io.errStyle.yellow(`Note: TOPUP_PROFILE=${envProfile} is set and wins over the current profile until you unset it.`));
}

async function pick(ctx: CliContext, names: readonly string[], current: string | undefined): Promise<string> {
  if (!ctx.io.canPrompt())
    throw new UsageError(`Which profile? Pass --profile NAME (profiles: ${names.join(', ')}); ${ctx.io.noPromptReason()}.`);
  const settings = ctx.settings();
  const prompter = await ctx.prompter();
  return prompter.select({
    message: 'Switch to which profile?',
    choices: names.map((name) => ({
      name: name === current ? `${name} (current)` : name,
      value: name,
      description: settings.profile(name)!.base_url,
    })),
    ...(current === undefined ? {} : { default: current }),
  });
}
