import { CONTROL_HEADER, CONTROL_PREFIX } from '../../../contract/sandbox-control.js';
import { isLoopbackHost } from '../../../client/base-url.js';

/** How long the login prompt waits to learn whether a topup sandbox answers before it asks anyway. */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * Where the login prompt says a token comes from. A shop makes tokens on its API-access page; a topup sandbox has
 * no such page (it would be a 404 there): its tokens are its fixtures, which `topup mock fixtures` lists. Only a
 * loopback base URL is asked, with a token-less GET of the control API, so a real shop never sees the question.
 */
export async function tokenSource(baseUrl: string, fetch: typeof globalThis.fetch, signal: AbortSignal | undefined): Promise<string> {
  const shopPage = `create one at ${baseUrl}/user/api-access`;
  if (!isLoopbackHost(new URL(baseUrl).hostname)) return shopPage;
  const timeout = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  try {
    const answer = await fetch(`${baseUrl}${CONTROL_PREFIX}/clock`, {
      headers: { [CONTROL_HEADER]: '1', accept: 'application/json' },
      signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
    });
    // Only the headers say what answered; the body is not read.
    return answer.headers.get(CONTROL_HEADER) === '1' ? 'a topup sandbox: `topup mock fixtures` lists its tokens' : shopPage;
  } catch {
    // Nothing answered in time: the question is still worth asking, with the shop's page.
    return shopPage;
  }
}
