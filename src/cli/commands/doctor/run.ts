import type { TopupClient } from '../../../client/index.js';
import type { EndpointId } from '../../../contract/endpoints.js';
import { endpointRoutes } from '../../../contract/routes.js';
import type { CliContext } from '../../context.js';
import { clockSkewSeconds, contractFindings, rateLimitHeadersOf, SKEW_LIMIT_SECONDS, type Finding } from './checks.js';
import { UsageError } from '../../errors.js';
import { renderFields } from '../../io/table.js';
import { describeTarget, type TargetSpec } from '../../target.js';

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
  target: { description: string; kind: 'embedded' | 'remote'; base_url: string | null; source: string; profile: string | null } | null;
  checks: Check[];
  findings: Finding[];
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
 * `topup doctor`: where requests go and why, whether the server answers, its clock and rate-limit headers, the
 * token's validity and mode, and with `--contract` a paced read of every GET endpoint checked against the contract.
 * Read-only: it never creates an order.
 */
export async function runDoctor(ctx: CliContext, options: { contract: boolean }): Promise<void> {
  const report: DoctorReport = { target: null, checks: [], findings: [] };
  const check = (name: string, ok: boolean, detail: string) => report.checks.push({ name, ok, detail });
  const find = (where: string, problem: string) => report.findings.push({ where, problem });

  let spec: TargetSpec;
  try {
    spec = ctx.targetSpec();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    check('target', false, errorText(error));
    find('target', `${errorText(error)}.`);
    return finish(ctx, report);
  }
  const target = await ctx.target();
  report.target = {
    description: describeTarget(spec),
    kind: spec.kind,
    base_url: target.kind === 'embedded' ? target.sandbox.baseUrl : target.baseUrl,
    source: spec.source,
    profile: spec.kind === 'remote' ? (spec.profile ?? null) : null,
  };
  check('target', true, describeTarget(spec));

  const seen: Recorded[] = [];
  let probe: EndpointId | undefined;
  const client = await ctx.client({ wrapFetch: (fetch) => recordingFetch(fetch, seen, () => probe) });
  const ask = async <T>(id: EndpointId, call: () => Promise<T>): Promise<T | undefined> => {
    probe = id;
    try {
      return await call();
    } catch (error) {
      find(endpointName(id), `${errorText(error)}.`);
      return undefined;
    } finally {
      probe = undefined;
    }
  };

  // The server: does it answer, what time is it there, does it publish its rate limits.
  const sentAt = ctx.clock.now();
  probe = 'getHealth';
  try {
    await client.health({ signal: ctx.signal });
  } catch (error) {
    check('server', false, errorText(error));
    find('server', `${errorText(error)}.`);
    return finish(ctx, report);
  } finally {
    probe = undefined;
  }
  const health = seen.at(-1)!;
  check('server', true, `GET /api/v1/health answered ${health.status} in ${ctx.clock.now() - sentAt} ms`);
  const skew = clockSkewSeconds(health.headers.get('date'), ctx.clock.now());
  if (skew === undefined) check('clock', true, 'the server sends no Date header; nothing to compare');
  else if (Math.abs(skew) > SKEW_LIMIT_SECONDS) {
    check('clock', false, `the server's clock is ${Math.abs(skew)} s ${skew > 0 ? 'ahead' : 'behind'}`);
    find(
      'clock',
      `The server's clock is ${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} this machine's; rate-limit reset times and invoice expiry will be misread.`,
    );
  } else check('clock', true, `within ${SKEW_LIMIT_SECONDS} s of this machine's (${skew} s)`);
  const limits = rateLimitHeadersOf(health.headers);
  check(
    'rate limits',
    true,
    Object.keys(limits).length === 0
      ? 'no X-RateLimit-* headers; the client keeps to the published limits'
      : Object.entries(limits)
          .map(([name, value]) => `${name}: ${value}`)
          .join(', '),
  );

  // The token: is there one, does the server take it, in which mode.
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
    check('token', false, why.replace(/\.$/, ''));
    find('token', `${why.replace(/\.$/, '')}; commands under /me will be refused.`);
  } else {
    const validation = await ask('validateToken', () => client.token.validate({ signal: ctx.signal }));
    if (validation === undefined) check('token', false, `${token} was not accepted`);
    else {
      const mode = validation.mode;
      const stored = spec.kind === 'remote' && spec.tokenSource === 'profile' ? spec.mode : undefined;
      check(
        'token',
        true,
        `${token} is valid: ${mode ?? 'mode not reported'}${validation.user?.username ? `, user ${validation.user.username}` : ''}`,
      );
      if (stored !== undefined && mode !== undefined && stored !== mode) {
        find('token', `The profile remembers a ${stored} token, but the server reports ${mode}; log in again to update it.`);
      }
    }
  }

  if (options.contract) await probeContract(client, ask, token !== undefined, ctx.signal);
  for (const answer of seen) {
    if (answer.probe === undefined || answer.status < 200 || answer.status > 299) continue;
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      find(endpointName(answer.probe), 'The answer is not JSON.');
      continue;
    }
    const { endpointById, successEnvelope } = await import('../../../contract/endpoints.js');
    report.findings.push(...contractFindings(endpointName(answer.probe), successEnvelope(endpointById[answer.probe].data), body));
  }
  if (options.contract)
    check(
      'contract',
      report.findings.length === 0,
      `${new Set(seen.map((s) => s.probe).filter(Boolean)).size} of 17 endpoints read; order creation is never tried`,
    );
  return finish(ctx, report);
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

async function finish(ctx: CliContext, report: DoctorReport): Promise<void> {
  if (ctx.globals.json) await ctx.io.writeJson(report);
  else {
    const style = ctx.io.style;
    ctx.io.out(
      renderFields(
        report.checks.map((c) => [c.name, `${c.ok ? style.green('✓') : style.red('✗')} ${c.detail}`]),
        { terminal: ctx.io.terminal, style },
      ),
    );
    if (report.findings.length > 0) {
      ctx.io.out(`\n${report.findings.length} ${report.findings.length === 1 ? 'finding' : 'findings'}:\n`);
      for (const f of report.findings) ctx.io.out(`- ${f.where}: ${f.problem}\n`);
    } else ctx.io.success('No problems found.');
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
