import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../mocks/index.js';
import { checkState, sandboxStateSchema, StateRefusal } from '../../mocks/state/state-schema.js';

// The whole-state schema is built on first use (not when the module loads); checkState, which opening a state file
// runs, checks the same shape from its envelope and the record schemas. Both must agree on what a state is.
describe('the sandbox state schema, built on first use', () => {
  it('is built once, accepts a state the sandbox gives, as checkState does', async () => {
    const state = (await createSandbox()).snapshot();
    expect(sandboxStateSchema()).toBe(sandboxStateSchema());
    expect(sandboxStateSchema().safeParse(state).success).toBe(true);
    expect(checkState(structuredClone(state), Date.now()).tables.orders).toEqual(state.tables.orders);
  });

  it('refuses a record that is not its table’s shape, as checkState does', async () => {
    const state = structuredClone((await createSandbox()).snapshot()) as { tables: Record<string, Record<string, unknown>[]> };
    state.tables.accounts![0]!.balance = -1;
    const parsed = sandboxStateSchema().safeParse(state);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['tables', 'accounts', 0, 'balance']);
    expect(() => checkState(state, Date.now())).toThrow(StateRefusal);
    expect(() => checkState(state, Date.now())).toThrow(/^tables\.accounts\[0\]\.balance /);
  });

  it('refuses a state without a table', async () => {
    const state = structuredClone((await createSandbox()).snapshot()) as { tables: Record<string, unknown> };
    delete state.tables.orders;
    expect(sandboxStateSchema().safeParse(state).success).toBe(false);
    expect(() => checkState(state, Date.now())).toThrow(/^tables\.orders /);
  });
});
