import { Option, type Command } from 'commander';
import type { TokenMode } from '../../../contract/index.js';
import { redactText } from '../../../contract/redact.js';
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors.js';
import { readAll } from '../../io/streams.js';
import { isVisibleWord } from '../../../contract/visible-word.js';
import { CHAT_USER_ID_MAX_LENGTH, checkProfileName } from '../../settings.js';
import { profileNameFor } from './profile-name.js';
import { parseBaseUrl } from '../../../client/base-url.js';

export const DEFAULT_PROFILE = 'default';

const NO_TOKEN_ARGUMENTS =
  'A token is never accepted on the command line (it would land in the shell history); type it at the prompt, or pipe it in with --with-token.';

/**
 * What a profile keeps of the username the token check reported: a text, with the token cut from it. A server may echo
 * the token anywhere, and config.json is no place for it: only credentials.json holds a token.
 */
function storedUsername(username: unknown, token: string): string | undefined {
  return typeof username === 'string' ? redactText(username, [token]) : undefined;
}

/** A mode the CLI knows what to do with; any other value a server reports is shown, not stored. */
function knownMode(mode: string | undefined): TokenMode | undefined {
  return mode === 'sandbox' || mode === 'production' ? mode : undefined;
}

export interface LoginOptions {
  withToken?: boolean | undefined;
  /** Present only to refuse it: see NO_TOKEN_ARGUMENTS. */
  token?: string | undefined;
}

export async function runLogin(ctx: CliContext, options: LoginOptions, stray: readonly string[]): Promise<void> {
  if (options.token !== undefined || stray.length > 0) throw new UsageError(NO_TOKEN_ARGUMENTS);
  if (ctx.globals.mock)
    throw new UsageError('The built-in offline sandbox needs no login; drop --mock, or pass --base-url of a served sandbox.');
  const name = profileNameFor(ctx, DEFAULT_PROFILE)!;
  checkProfileName(name);
  const baseUrl = siteRoot(
    parseBaseUrl(ctx.globals.baseUrl ?? (ctx.io.env.TOPUP_BASE_URL || undefined) ?? (await askBaseUrl(ctx, parseBaseUrl))),
  );
  const token = options.withToken ? await tokenFromStdin(ctx) : await askToken(ctx, baseUrl);

  const client = await ctx.client({ server: { baseUrl, token } });
  const validation = await client.token.validate({ signal: ctx.signal });
  // The token check's answer is not in the interface document: keep what it says, and no guess of what it does not.
  const username = storedUsername(validation.user?.username, token);
  const mode = knownMode(validation.mode);
  const settings = ctx.settings();
  const earlier = settings.profile(name);
  // The chat link belongs to the account, so it survives a new token for the same account only.
  // Without a username from the server the accounts cannot be told apart, so the link is not carried over.
  const sameAccount = earlier !== undefined && earlier.base_url === baseUrl && username !== undefined && earlier.username === username;
  const chatUserId = sameAccount ? earlier.chat_user_id : (await askChatUserId(ctx, mode, options)) || undefined;
  // The server's time zone is the server's, whichever account logs in to it.
  const timeZone = earlier !== undefined && earlier.base_url === baseUrl ? earlier.time_zone : undefined;
  await settings.saveProfile(
    name,
    {
      base_url: baseUrl,
      mode,
      username,
      ...(chatUserId === undefined ? {} : { chat_user_id: chatUserId }),
      ...(timeZone === undefined ? {} : { time_zone: timeZone }),
    },
    token,
    true,
  );

  if (ctx.globals.json)
    await ctx.io.writeJson({ profile: name, base_url: baseUrl, mode: validation.mode ?? null, username: username ?? null });
  ctx.io.success(
    `Logged in to ${baseUrl}${username === undefined ? '' : ` as ${username}`} (${validation.mode ?? 'mode not reported'}${validation.mode === undefined ? '' : ' token'}), profile ${name}.`,
  );
  if (ctx.io.env.TOPUP_TOKEN)
    ctx.io.notice(ctx.io.errStyle.yellow('Note: TOPUP_TOKEN is set and wins over the stored token until you unset it.'));
}

/**
 * Paying by balance with a production token needs the chat user id (X-Chat-User-ID): on a terminal, login offers to
 * store it, so the first such order does not fail with CHAT_LINK_REQUIRED. Empty skips; never asked without a terminal.
 */
async function askChatUserId(ctx: CliContext, mode: TokenMode | undefined, options: LoginOptions): Promise<string> {
  if (mode !== 'production' || options.withToken || ctx.globals.json || !ctx.io.canPrompt()) return '';
  const prompter = await ctx.prompter();
  const answer = await prompter.input({
    message: 'Chat user id, to pay by balance (sent as X-Chat-User-ID; empty to skip, later: topup config set chat_user_id ID):',
    validate: (value) =>
      value.trim() === '' || isVisibleWord(value.trim(), CHAT_USER_ID_MAX_LENGTH)
        ? true
        : `The chat user id is 1 to ${CHAT_USER_ID_MAX_LENGTH} visible characters without spaces.`,
  });
  return answer.trim();
}

/** The stored form: the normalised URL without its trailing slash. */
function siteRoot(normalised: string): string {
  return normalised.replace(/\/$/, '');
}

async function askBaseUrl(ctx: CliContext, parseBaseUrl: (url: unknown) => string): Promise<string> {
  if (!ctx.io.canPrompt())
    throw new UsageError('Which server? Pass --base-url URL (or set TOPUP_BASE_URL); there is no terminal to ask on.');
  const prompter = await ctx.prompter();
  return prompter.input({
    message: 'Base URL of the shop (e.g. https://shop.example.com):',
    validate: (value) => {
      try {
        parseBaseUrl(value);
        return true;
      } catch (error) {
        return (error as Error).message;
      }
    },
  });
}

async function askToken(ctx: CliContext, baseUrl: string): Promise<string> {
  if (!ctx.io.canPrompt())
    throw new UsageError('No terminal to ask for the token on; pipe it in: topup auth login --with-token < token.txt');
  const { tokenSource } = await import('./token-source.js');
  const source = await tokenSource(baseUrl, await ctx.remoteFetch(), ctx.signal);
  const prompter = await ctx.prompter();
  const answer = await prompter.password({
    message: `API token (${source}):`,
    validate: (value) => (value.trim() === '' ? 'The token is empty.' : true),
  });
  return answer.trim();
}

/** The most `--with-token` reads: node's whole request head is at most 16 KiB, so no longer token can be sent. */
const MAX_TOKEN_BYTES = 16 * 1024;

async function tokenFromStdin(ctx: CliContext): Promise<string> {
  if (ctx.io.stdin.isTTY)
    throw new UsageError(
      '--with-token reads the token from a pipe, not a terminal; drop --with-token to be asked for it with hidden input.',
    );
  // One trailing newline is what `echo` and most files add; anything else is left for the client to refuse.
  const tooLarge = () => new UsageError(`stdin holds more than ${MAX_TOKEN_BYTES / 1024} KiB, more than a token sent in a header can be.`);
  const token = (await readAll(ctx.io.stdin, { maxBytes: MAX_TOKEN_BYTES, tooLarge, signal: ctx.signal })).replace(/\r?\n$/, '');
  if (token === '') throw new UsageError('No token on stdin; pipe it in: topup auth login --with-token < token.txt');
  return token;
}

/** `topup auth login`: the token by hidden prompt or stdin, never as an argument. */
export function registerLogin(auth: Command, ctx: CliContext): void {
  auth
    .command('login')
    .usage('[--with-token] [--base-url URL] [--profile NAME]')
    .description('Check a token with the server and store it in a profile (files of mode 0600)')
    .option('--with-token', 'read the token from stdin instead of asking for it')
    .addOption(new Option('--token <token>').hideHelp())
    // Stray words are checked in the action, so the refusal can say why a token is never an argument.
    .allowExcessArguments(true)
    .addHelpText(
      'after',
      `
On a terminal it asks for the token with hidden input, and for the base URL when neither --base-url nor
TOPUP_BASE_URL gives one. The token is checked with the server (token/validate) before anything is stored,
and the profile (default: 'default') becomes the current one.

Examples:
  $ topup auth login --base-url https://shop.example.com
  $ topup auth login --with-token --base-url https://shop.example.com --profile bot < token.txt
  $ printf '%s' "$SHOP_TOKEN" | topup auth login --with-token --base-url http://127.0.0.1:4010`,
    )
    .action((options: LoginOptions, command: Command) => runLogin(ctx, options, command.args));
}
