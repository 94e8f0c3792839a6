import type { TopupClient } from '../../../client/index.js';
import type { EndpointId } from '../../../contract/endpoints.js';
import { endpointRoutes } from '../../../contract/routes.js';
import { INSTANCE_HEADER } from '../../../contract/sandbox-control.js';
import type { CliContext } from '../../context.js';
import {
  clockSkewSeconds,
  contractDifferences,
  rateLimitHeadersOf,
  shownValue,
  SKEW_LIMIT_SECONDS,
  unknownEnumNotes,
  type Finding,
  type Note,
} from './checks.js';
import { UsageError } from '../../errors.js';
import { sanitizeText } from '../../io/sanitize.js';
import { renderFields } from '../../io/table.js';
import { describeTarget, type TargetSpec } from '../../target.js';
import type { TargetSummary } from '../../where.js';

/** One answer as the server sent it, for the checks that the client's parsed `data` cannot answer. */
interface Recorded {
  probe: EndpointId | undefined;
  status: number;
  headers: { get(name: string): string | null };
  body: string;
}

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface DoctorReport {
  /** Where requests go; `origin`, `profile` and `mode` as in every --json `target` (src/cli/where.ts). */
  target: ({ description: string; kind: 'embedded' | 'remote'; base_url: string | null; source: string } & TargetSummary) | null;
  checks: Check[];
  /** Problems: each makes the exit status 1. */
  findings: Finding[];
  /** Worth knowing, not wrong: values this version does not know, which every command shows as they are. */
  notes: Note[];
}

/** A fetch that keeps every answer it passes on, tagged with the probe that asked. */
function recordingFetch(fetch: typeof globalThis.fetch, seen: Recorded[], current: () => EndpointId | undefined): typeof globalThis.fetch {
  return (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const answer = await fetch(input, init);
    const body = await answer.text();
    seen.push({ probe: current(), status: answer.status, headers: answer.headers, body });
    return { status: answer.status, ok: answer.ok, headers: answer.headers, text: async () => body };
  }) as typeof globalThis.fetch;
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');

/**
 * The report as the checks fill it in: a check is a line of the table, a finding a problem to fix (exit 1), a note
 * something a reader may want to know that is no problem.
 */
class Report implements DoctorReport {
  target: DoctorReport['target'] = null;
  checks: Check[] = [];
  findings: Finding[] = [];
  notes: Note[] = [];

  check(name: string, ok: boolean, detail: string): void {
    this.checks.push({ name, ok, detail });
  }

  find(where: string, problem: string): void {
    this.findings.push({ where, problem });
  }

  /** Plain data, keys in the order --json has always printed them. */
  toJSON(): DoctorReport {
    return { target: this.target, checks: this.checks, findings: this.findings, notes: this.notes };
  }
}

/** Every answer the client gets, kept and tagged with the probe (endpoint) that asked for it. */
class Probes {
  readonly seen: Recorded[] = [];
  #current: EndpointId | undefined;

  constructor(private readonly report: Report) {}

  readonly wrapFetch = (fetch: typeof globalThis.fetch) => recordingFetch(fetch, this.seen, () => this.#current);

  /** `call`, its answers tagged with `id`. */
  async as<T>(id: EndpointId, call: () => Promise<T>): Promise<T> {
    this.#current = id;
    try {
      return await call();
    } finally {
      this.#current = undefined;
    }
  }

  /** `call` as `id`; a failure is a finding about that endpoint, and undefined. */
  readonly ask: Ask = async (id, call) => {
    try {
      return await this.as(id, call);
    } catch (error) {
      this.report.find(endpointName(id), `${errorText(error)}.`);
      return undefined;
    }
  };
}

/**
 * `topup doctor`: where requests go and why, whether the server answers, its clock and rate-limit headers, the
 * token's validity and mode, and with `--contract` a paced read of every GET endpoint checked against the contract.
 * Read-only: it never creates an order.
 */
export async function runDoctor(ctx: CliContext, options: { contract: boolean }): Promise<void> {
  const report = new Report();
  const spec = await checkTarget(ctx, report);
  if (spec === undefined) return finish(ctx, report);
  const probes = new Probes(report);
  const client = await ctx.client({ wrapFetch: probes.wrapFetch });
  const health = await checkServer(ctx, report, client, probes);
  if (health === undefined) return finish(ctx, report);
  checkSandbox(report, health, (await ctx.target()).kind === 'embedded');
  checkClock(ctx, report, health);
  checkRateLimits(report, health);
  const token = await checkToken(ctx, report, spec, client, probes);
  if (options.contract) await probeContract(client, probes.ask, token !== undefined, ctx.signal);
  await checkAnswers(report, probes.seen);
  if (options.contract)
    report.check(
      'contract',
      report.findings.length === 0,
      `${new Set(probes.seen.map((s) => s.probe).filter(Boolean)).size} of 17 endpoints read; order creation is never tried`,
    );
  return finish(ctx, report);
}

/** Where requests go and why; undefined (a failed check) when the flags and settings name no usable target. */
async function checkTarget(ctx: CliContext, report: Report): Promise<TargetSpec | undefined> {
  let spec: TargetSpec;
  try {
    spec = ctx.targetSpec();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    report.check('target', false, errorText(error));
    report.find('target', `${errorText(error)}.`);
    return undefined;
  }
  const target = await ctx.target();
  const description = describeTarget(spec, target.kind === 'embedded' && target.home.kind === 'served' ? target.baseUrl : undefined);
  report.target = {
    description,
    kind: spec.kind,
    base_url: target.baseUrl,
    source: spec.source,
    ...(await ctx.targetSummary())!,
  };
  report.check('target', true, description);
  checkCredentialFiles(ctx, report, spec);
  return spec;
}

/** A stored token others can read is a finding (the run's warning is silent with --json): the command that fixes it. */
function checkCredentialFiles(ctx: CliContext, report: Report, spec: TargetSpec): void {
  if (spec.kind !== 'remote' || spec.tokenSource !== 'profile') return;
  const settings = ctx.settings();
  if (settings.credentialsExposed())
    report.find('credentials', `${settings.credentialsPath} is readable by other users; run: chmod 600 ${settings.credentialsPath}`);
  if (settings.folderExposed())
    report.find('credentials', `${settings.dir}, the folder of the stored tokens, is open to other users; run: chmod 700 ${settings.dir}`);
  const changeable = settings.changeableByOthers();
  if (changeable !== undefined && changeable !== settings.dir)
    report.find(
      'credentials',
      `Other users can write to ${changeable}, and so send the stored token elsewhere; run: chmod go-w ${changeable}`,
    );
}

/** Does the server answer: its health answer as sent, or undefined (a failed check) when it does not. */
async function checkServer(ctx: CliContext, report: Report, client: TopupClient, probes: Probes): Promise<Recorded | undefined> {
  const sentAt = ctx.clock.now();
  let data: { status?: unknown };
  try {
    data = await probes.as('getHealth', () => client.health({ signal: ctx.signal }));
  } catch (error) {
    report.check('server', false, errorText(error));
    report.find('server', `${errorText(error)}.`);
    return undefined;
  }
  const health = probes.seen.at(-1)!;
  // The health record is our design (the document shows none of it): a status other than the sandbox's "ok" may mean
  // "down" or only "up". Said as sent, for the reader to judge; the answer itself is what this check is about.
  const said = typeof data.status === 'string' && data.status !== 'ok' ? `, saying its status is ${shownValue(data.status)}` : '';
  report.check('server', true, `GET /api/v1/health answered ${health.status} in ${ctx.clock.now() - sentAt} ms${said}`);
  return health;
}

/**
 * Whether the answers are a topup sandbox's (made up) or a real shop's: the embedded sandbox, or a server that sends the
 * X-Topup-Sandbox-Instance header on every answer as `topup mock serve` and startHttpSandbox do. Never a finding.
 */
function checkSandbox(report: Report, health: Recorded, embedded: boolean): void {
  if (embedded) return report.check('sandbox', true, 'the topup sandbox answers: its data is made up');
  const instance = health.headers.get(INSTANCE_HEADER);
  report.check(
    'sandbox',
    true,
    instance === null
      ? 'the server does not identify as a topup sandbox'
      : 'a topup sandbox answers (topup mock serve, startHttpSandbox or sandbox.fetch): its data is made up',
  );
}

/** What time it is there: a clock far off misreads rate-limit reset times and invoice expiry. */
function checkClock(ctx: CliContext, report: Report, health: Recorded): void {
  const date = health.headers.get('date');
  const skew = clockSkewSeconds(date, ctx.clock.now());
  if (date === null) report.check('clock', true, 'the server sends no Date header; nothing to compare');
  else if (skew === undefined)
    report.check(
      'clock',
      true,
      `the server's Date header is not a date (${sanitizeText(shownValue(date), { multiline: false })}); nothing to compare`,
    );
  else if (Math.abs(skew) > SKEW_LIMIT_SECONDS) {
    report.check('clock', false, `the server's clock is ${Math.abs(skew)} s ${skew > 0 ? 'ahead' : 'behind'}`);
    report.find(
      'clock',
      `The server's clock is ${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} this machine's; rate-limit reset times and invoice expiry will be misread.`,
    );
  } else report.check('clock', true, `within ${SKEW_LIMIT_SECONDS} s of this machine's (${skew} s)`);
}

/** Whether the server publishes its rate limits (never a finding: the client keeps to the published ones). */
function checkRateLimits(report: Report, health: Recorded): void {
  const limits = rateLimitHeadersOf(health.headers);
  report.check(
    'rate limits',
    true,
    Object.keys(limits).length === 0
      ? 'no X-RateLimit-* headers; the client keeps to the published limits'
      : Object.entries(limits)
          // A header's value may carry obs-text (a C1 control once decoded): escaped as every server text is.
          .map(([name, value]) => `${name}: ${sanitizeText(value, { multiline: false })}`)
          .join(', '),
  );
}

/** Is there a token, does the server take it, in which mode. Returns how the token is named, undefined for none. */
async function checkToken(
  ctx: CliContext,
  report: Report,
  spec: TargetSpec,
  client: TopupClient,
  probes: Probes,
): Promise<string | undefined> {
  const token =
    spec.kind === 'embedded'
      ? 'the built-in demo token'
      : spec.tokenSource === 'environment'
        ? 'TOPUP_TOKEN'
        : spec.tokenSource === 'profile'
          ? `the token of profile ${spec.profile}`
          : undefined;
  if (token === undefined) {
    const why = ctx.missingTokenReason() ?? 'No token.';
    report.check('token', false, why.replace(/\.$/, ''));
    report.find('token', `${why.replace(/\.$/, '')}; commands under /me will be refused.`);
    return undefined;
  }
  const validation = await probes.ask('validateToken', () => client.token.validate({ signal: ctx.signal }));
  if (validation === undefined) {
    report.check('token', false, `${token} was not accepted`);
    return token;
  }
  const mode = validation.mode;
  const stored = spec.kind === 'remote' && spec.tokenSource === 'profile' ? spec.mode : undefined;
  report.check(
    'token',
    true,
    `${token} is valid: ${mode ?? 'mode not reported'}${validation.user?.username ? `, user ${validation.user.username}` : ''}`,
  );
  if (stored !== undefined && mode !== undefined && stored !== mode) {
    report.find('token', `The profile remembers a ${stored} token, but the server reports ${mode}; log in again to update it.`);
  }
  return token;
}

/** Every successful answer of a probe, checked against the contract of its endpoint. */
async function checkAnswers(report: Report, seen: readonly Recorded[]): Promise<void> {
  for (const answer of seen) {
    if (answer.probe === undefined || answer.status < 200 || answer.status > 299) continue;
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      report.find(endpointName(answer.probe), 'The answer is not JSON.');
      continue;
    }
    const { endpointById, successEnvelope } = await import('../../../contract/endpoints.js');
    const schema = successEnvelope(endpointById[answer.probe].data);
    const differences = contractDifferences(endpointName(answer.probe), schema, body);
    report.findings.push(...differences.findings);
    report.notes.push(...differences.notes);
    report.notes.push(...unknownEnumNotes(endpointName(answer.probe), schema, body));
  }
}

/** `GET /api/v1/me/balance`: how a finding names the endpoint it is about. */
const endpointName = (id: EndpointId) => `${endpointRoutes[id].method} ${endpointRoutes[id].path}`;

type Ask = <T>(id: EndpointId, call: () => Promise<T>) => Promise<T | undefined>;

/** Every GET endpoint once, through the client (so paced and retried as any command); detail endpoints on the first listed record. */
async function probeContract(client: TopupClient, ask: Ask, withToken: boolean, signal: AbortSignal | undefined): Promise<void> {
  const o = { signal };
  await ask('listCreditPackages', () => client.catalog.creditPackages(o));
  await ask('listPaymentMethods', () => client.catalog.paymentMethods(o));
  const articles = await ask('listArticles', async () => await client.articles.list({}, o));
  const slug = firstString(articles?.articles, 'slug');
  if (slug !== undefined) await ask('getArticle', () => client.articles.get(slug, o));
  if (!withToken) return;
  await ask('getProfile', () => client.account.profile(o));
  await ask('getDashboardSummary', () => client.account.dashboard(o));
  await ask('getBalance', () => client.balance.get(o));
  await ask('listBalanceTransactions', async () => await client.balance.transactions({}, o));
  const deposits = await ask('listDeposits', async () => await client.deposits.list({}, o));
  const deposit = firstString(deposits?.deposits, 'invoice_code');
  if (deposit !== undefined) await ask('getDeposit', () => client.deposits.get(deposit, o));
  const orders = await ask('listOrders', async () => await client.orders.list({}, o));
  const order = firstString(orders?.orders, 'invoice_code');
  if (order === undefined) return;
  await ask('getOrder', () => client.orders.get(order, o));
  await ask('getInvoice', () => client.invoices.get(order, o));
  await ask('getInvoiceStatus', () => client.invoices.status(order, o));
}

/** The named string field of a list's first record, when the answer has one (a tolerant read: lists may be missing). */
function firstString(list: unknown, field: string): string | undefined {
  const first: unknown = Array.isArray(list) ? list[0] : undefined;
  const value = first !== null && typeof first === 'object' ? (first as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' ? value : undefined;
}

async function finish(ctx: CliContext, report: Report): Promise<void> {
  if (ctx.globals.json) await ctx.io.writeJson(report.toJSON());
  else {
    const style = ctx.io.style;
    ctx.io.out(
      renderFields(
        report.checks.map((c) => [c.name, `${c.ok ? style.green('✓') : style.red('✗')} ${c.detail}`]),
        ctx.io.view,
      ),
    );
    if (report.findings.length > 0) {
      ctx.io.out(`\n${report.findings.length} ${report.findings.length === 1 ? 'finding' : 'findings'}:\n`);
      for (const f of report.findings) ctx.io.out(`- ${f.where}: ${f.problem}\n`);
    }
    if (report.notes.length > 0) {
      ctx.io.out(`\n${report.notes.length} ${report.notes.length === 1 ? 'note' : 'notes'}, no problem (shown as they are):\n`);
      for (const n of report.notes) ctx.io.out(`- ${n.where}: ${n.note}\n`);
    }
    if (report.findings.length === 0) ctx.io.success('No problems found.');
  }
  if (report.findings.length > 0) throw new DoctorFindings(report.findings.length);
}

/** Exit 1 with the findings already printed: one summary sentence on stderr. */
export class DoctorFindings extends Error {
  override name = 'DoctorFindings';
  constructor(count: number) {
    super(`topup doctor found ${count} ${count === 1 ? 'problem' : 'problems'}.`);
  }
}
