import { describe, expect, it } from 'vitest';
import { createSandbox, createSandboxOnDemand, type Sandbox } from '../../mocks/assembly/sandbox.js';
import { SIMPLE_ORDER } from '../support/sandbox-harness.js';

/*
 * The offline CLI's embedded sandbox (createSandboxOnDemand) loads the contract's schemas with the first request that
 * needs them; createSandbox() loads them before its first answer. The first test runs before any sandbox of this file
 * has loaded them (the pipeline keeps them once loaded, for the module's life): keep it first.
 */
/** A list (which needs the query's schema), a balance read of the same rate class, and three orders, sent at once. */
async function burst(sandbox: Sandbox): Promise<{ statuses: number[]; remaining: (string | null)[] }> {
  const token = sandbox.account('demo').token;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const order = (key: string) =>
    sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/orders`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': key },
      body: JSON.stringify(SIMPLE_ORDER),
    });
  const answers = await Promise.all([
    sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/orders?per_page=5`, { headers }),
    sandbox.fetch(`${sandbox.baseUrl}/api/v1/me/balance`, { headers }),
    order('burst-1'),
    order('burst-2'),
    order('burst-3'),
  ]);
  return {
    statuses: answers.map((answer) => answer.status),
    remaining: answers.slice(0, 2).map((answer) => answer.headers.get('x-ratelimit-remaining')),
  };
}

describe("the contract's schemas, loaded on demand or before the first answer", () => {
  it('on demand: a list that waits for them is admitted and counted on arrival, before the requests sent after it', async () => {
    const sandbox = await createSandboxOnDemand();
    const { statuses, remaining } = await burst(sandbox);
    // The list holds its in-flight place while it waits (three a token): the last order, not the first request, is refused.
    expect(statuses).toEqual([200, 200, 201, 201, 429]);
    // Counted first in its class (60 a minute), though the balance read after it was answered first.
    expect(remaining).toEqual(['59', '58']);
  });

  it('createSandbox(): nothing waits, so the list is answered at once and every order is taken', async () => {
    const sandbox = await createSandbox();
    const { statuses, remaining } = await burst(sandbox);
    expect(statuses).toEqual([200, 200, 201, 201, 201]);
    expect(remaining).toEqual(['59', '58']);
  });
});
