import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { openPersistentSandbox } from '../../mocks/assembly/persistent-sandbox.js';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import { accounts, dataOf, expectError, SIMPLE_ORDER, transports, useSandboxes } from '../support/sandbox-harness.js';

const { rich } = await accounts();
const CONTROL = { 'x-topup-sandbox': '1' };

describe.each(transports)('the whole state over the control API (%s)', (transport) => {
  const sandbox = useSandboxes();

  it('GET /__sandbox/state is a snapshot; PUT loads it as it came, envelope and all, into another sandbox', async () => {
    const first = await sandbox(transport);
    const order = dataOf(await first.request('POST', '/api/v1/me/orders', { token: rich.token, body: SIMPLE_ORDER }), 201);
    const code = order.invoice.invoice_code as string;
    const saved = await first.request('GET', '/__sandbox/state');
    expect(saved.status).toBe(200);
    expect(saved.json.data).toMatchObject({ version: 1, counters: { invoice: expect.any(Number) as unknown } });

    const second = await sandbox(transport);
    expectError(await second.request('GET', `/api/v1/me/orders/${code}`, { token: rich.token }), 404, 'NOT_FOUND');
    const loaded = await second.request('PUT', '/__sandbox/state', { body: saved.json });
    expect(loaded.status).toBe(200);
    expect(loaded.json.message).toBe('Sandbox state loaded.');
    expect((await second.request('GET', `/api/v1/me/orders/${code}`, { token: rich.token })).status).toBe(200);
    expect(second.state()).toEqual(first.state());
    // The bare snapshot loads too.
    expect((await second.request('PUT', '/__sandbox/state', { body: saved.json.data })).status).toBe(200);
  });

  it.each([
    ['not a snapshot', { version: 2, tables: {} }, /^The state cannot be loaded: Not a sandbox state file of version 1\.$/],
    ['a record that breaks its schema', 'bad-order', /^The state cannot be loaded: tables\.orders\[0\]\.invoice_code must be a string\.$/],
  ])('a bad state (%s) is 422 and changes nothing', async (_name, body, message) => {
    const t = await sandbox(transport);
    await t.request('POST', '/api/v1/me/orders', { token: rich.token, body: SIMPLE_ORDER });
    const before = t.state();
    const snapshot = body === 'bad-order' ? { ...before, tables: { ...before.tables, orders: [{ invoice_code: 42 }] } } : body;
    const answer = await t.request('PUT', '/__sandbox/state', { body: snapshot });
    expectError(answer, 422, 'VALIDATION_FAILED');
    expect(answer.json.message).toMatch(message);
    expect(t.state()).toEqual(before);
  });

  it("the control API's answer (its envelope) given in process says to load its data", async () => {
    const t = await sandbox(transport);
    const saved = await t.request('GET', '/__sandbox/state');
    await expect(createSandbox({ snapshot: saved.json })).rejects.toThrow(
      'The state cannot be loaded: Not a sandbox state file of version 1; this is the answer of GET /__sandbox/state, whose data is the state: load its data (topup mock state save writes it so).',
    );
    expect(await createSandbox({ snapshot: saved.json.data })).toBeDefined();
  });

  it('a body that is no JSON is 400, and a cross-site simple request is refused', async () => {
    const t = await sandbox(transport);
    expectError(
      await t.request('PUT', '/__sandbox/state', { rawBody: '{', headers: { ...CONTROL, 'content-type': 'application/json' } }),
      400,
      'INVALID_JSON',
    );
    if (transport === 'http') {
      const refused = await t.request('PUT', '/__sandbox/state', { rawBody: '{}', headers: { origin: 'https://evil.example' } });
      expect(refused.status).toBe(403);
    }
  });
});

describe('a state to load over HTTP', () => {
  const sandbox = useSandboxes();

  it('past 64 MiB is 413, names the door that takes a larger one, and changes nothing', async () => {
    const t = await sandbox('http');
    const before = t.state();
    const rawBody = `{"pad":"${'x'.repeat(64 * 2 ** 20)}"}`;
    const answer = await t.request('PUT', '/__sandbox/state', { rawBody, headers: { ...CONTROL, 'content-type': 'application/json' } });
    expectError(answer, 413, 'PAYLOAD_TOO_LARGE');
    expect(answer.json.message).toBe(
      'A state to load through the control API is at most 64 MiB; start a sandbox from a larger one with `topup mock serve --seed FILE` (or --state FILE).',
    );
    expect(t.state()).toEqual(before);
  });
});

describe('loading a state in-process', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'topup-state-load-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('sandbox.control.loadState rejects a bad state with ValidationError, and a loaded one is written to the state file', async () => {
    const file = join(dir, 'state.json');
    const source = await openPersistentSandbox(join(dir, 'source.json'));
    const saved = source.sandbox.snapshot();
    await source.sandbox.control.deposit({ amount: 50_000, account: 'rich', paid: true });
    const richer = source.sandbox.snapshot();
    await source.close();

    const target = await openPersistentSandbox(file);
    await expect(target.sandbox.control.loadState({ version: 1 })).rejects.toBeInstanceOf(ValidationError);
    expect(target.sandbox.snapshot()).toEqual(saved);
    await target.sandbox.control.loadState(richer);
    await target.close();
    // A restart reads what the load wrote.
    const reopened = await openPersistentSandbox(file);
    expect(reopened.sandbox.snapshot().tables).toEqual(richer.tables);
    await reopened.close();
  });
});
