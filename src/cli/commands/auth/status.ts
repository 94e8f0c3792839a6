import type { TokenValidation } from '../../../contract/index.js';
import type { TopupClient } from '../../../client/index.js';
import { AuthError, errorKind } from '../../../errors.js';
import type { CliContext } from '../../context.js';
import { orDash } from '../../io/format.js';
import { sanitizeText } from '../../io/sanitize.js';
import { renderFields } from '../../io/table.js';
import { tokenFamily } from './token-family.js';

/** The published limits allow 2 to 3 requests at once: the checks of all profiles keep to 2. */
const CHECKS_AT_ONCE = 2;

/** How a token check ended. A server that did not answer is `unreachable`, never `invalid`: nothing refused the token. */
export type CheckStatus = 'valid' | 'invalid' | 'no_token' | 'unreachable' | 'error';

type TokenSource = 'environment' | 'profile' | 'built-in';

/** One line of `auth status`: a profile, or the active target when no profile serves it. */
interface Entry {
  profile: string | null;
  active: boolean;
  embedded: boolean;
  base_url: string;
  token_source: TokenSource | null;
  /** Only to show its family; never printed. */
  token: string | undefined;
  /** What the profile remembers from its login, shown when the server cannot say. */
  storedMode: string | undefined;
  /** Checks the token; undefined when there is none to check. */
  client: (() => Promise<TopupClient>) | undefined;
}

interface Checked {
  entry: Entry;
  status: CheckStatus;
  message: string | null;
  validation: Partial<TokenValidation> | undefined;
  error: unknown;
}

/** The status a failed check shows: only the server's 401 makes a token invalid. */
export function checkStatusOf(error: unknown): CheckStatus {
  const kind = errorKind(error);
  if (kind === 'auth') return 'invalid';
  if (kind === 'connection' || kind === 'timeout') return 'unreachable';
  return 'error';
}

/** Runs `work` over `items` with at most `limit` at once, keeping their order. */
async function inTurns<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** The active target first (a profile, or the server and token the flags and variables name), then every other profile. */
async function entriesOf(ctx: CliContext): Promise<Entry[]> {
  const spec = ctx.targetSpec();
  const settings = ctx.settings();
  const entries: Entry[] = [];
  if (spec.kind === 'embedded') {
    const target = await ctx.target();
    if (target.kind !== 'embedded') throw new Error('The target changed kind.');
    entries.push({
      profile: null,
      active: true,
      embedded: true,
      base_url: target.baseUrl,
      token_source: 'built-in',
      token: target.token,
      storedMode: undefined,
      client: () => ctx.client(),
    });
  } else {
    entries.push({
      profile: spec.profile ?? null,
      active: true,
      embedded: false,
      base_url: spec.baseUrl,
      token_source: spec.token === undefined ? null : spec.tokenSource === 'environment' ? 'environment' : 'profile',
      token: spec.token,
      storedMode: spec.mode,
      client: spec.token === undefined ? undefined : () => ctx.client(),
    });
  }
  for (const name of settings.profileNames()) {
    if (name === entries[0]!.profile) continue;
    const profile = settings.profile(name)!;
    const token = settings.token(name);
    entries.push({
      profile: name,
      active: false,
      embedded: false,
      base_url: profile.base_url,
      token_source: token === undefined ? null : 'profile',
      token,
      storedMode: profile.mode,
      // One retry: a profile that is not in use must not hold up the list for a minute of backoff.
      client: token === undefined ? undefined : () => ctx.client({ server: { baseUrl: profile.base_url, token, maxRetries: 1 } }),
    });
  }
  return entries;
}

async function check(ctx: CliContext, entry: Entry): Promise<Checked> {
  if (entry.client === undefined) return { entry, status: 'no_token', message: null, validation: undefined, error: undefined };
  try {
    const validation = await (await entry.client()).token.validate({ signal: ctx.signal });
    return { entry, status: 'valid', message: null, validation, error: undefined };
  } catch (error) {
    // Ctrl-C ends the whole command, not one check.
    if (ctx.signal?.aborted || errorKind(error) === 'interrupted') throw error;
    const message = error instanceof Error ? error.message : String(error);
    return { entry, status: checkStatusOf(error), message, validation: undefined, error };
  }
}

const tokenSourceText: Record<TokenSource, string> = {
  environment: 'from TOPUP_TOKEN',
  profile: 'stored in the profile',
  'built-in': 'built-in demo token',
};

const statusText: Record<CheckStatus, string> = {
  valid: 'valid',
  invalid: 'invalid',
  no_token: 'no token',
  unreachable: 'unreachable',
  error: 'not checked',
};

function jsonOf(checked: Checked) {
  const { entry, validation } = checked;
  return {
    profile: entry.profile,
    active: entry.active,
    embedded: entry.embedded,
    base_url: entry.base_url,
    token_source: entry.token_source,
    status: checked.status,
    message: checked.message,
    mode: validation?.mode ?? entry.storedMode ?? null,
    username: validation?.user?.username ?? null,
    token_name: validation?.token_name ?? null,
    last_used_at: validation?.last_used_at ?? null,
  };
}

function fieldsOf(checked: Checked, ctx: CliContext): [string, string][] {
  const json = jsonOf(checked);
  const { entry } = checked;
  const profile = entry.embedded ? 'built-in offline sandbox' : (entry.profile ?? '(none: --base-url or TOPUP_BASE_URL)');
  const message = checked.message === null ? '' : `: ${sanitizeText(checked.message, { multiline: false })}`;
  const status = `${statusText[checked.status]}${message}`;
  const styled =
    checked.status === 'valid'
      ? ctx.io.style.green(status)
      : checked.status === 'invalid'
        ? ctx.io.style.red(status)
        : ctx.io.style.yellow(status);
  return [
    ['profile', profile],
    ['active', entry.active ? 'yes' : 'no'],
    ['base_url', entry.embedded ? `${entry.base_url} (in-process, offline)` : entry.base_url],
    ['username', orDash(json.username)],
    ['mode', orDash(json.mode)],
    [
      'token',
      entry.token === undefined || entry.token_source === null
        ? '-'
        : `${tokenFamily(entry.token)} (${tokenSourceText[entry.token_source]})`,
    ],
    ['token_name', orDash(json.token_name)],
    ['status', styled],
  ];
}

/**
 * `topup auth status`: every profile with its server, mode and whether its token is valid, the active one first.
 * Exit 4 when the active one has no token or the server refuses it, like `gh auth status`; any other failure of the
 * active check ends with that failure's exit code (7 for a server that cannot be reached). Other profiles never
 * change the exit code.
 */
export async function runStatus(ctx: CliContext): Promise<void> {
  const entries = await entriesOf(ctx);
  const checked = await inTurns(entries, CHECKS_AT_ONCE, (entry) => check(ctx, entry));
  if (ctx.globals.json) {
    await ctx.target();
    // The active entry says where this run's requests go, in the shape every --json `target` has (src/cli/where.ts).
    const target = await ctx.targetSummary();
    await ctx.io.writeJson(checked.map((c) => ({ ...jsonOf(c), target: c.entry.active ? (target ?? null) : null })));
  } else {
    const view = await ctx.io.tableView();
    ctx.io.out(checked.map((c) => renderFields(fieldsOf(c, ctx), view)).join('\n'));
  }
  const active = checked[0]!;
  if (active.status === 'no_token') throw new AuthError(ctx.missingTokenReason() ?? 'There is no token to check.');
  if (active.status !== 'valid') throw active.error;
  ctx.io.success('The token is valid.');
}
