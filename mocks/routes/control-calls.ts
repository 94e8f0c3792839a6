/**
 * The control API in a few lines, for `topup mock serve`'s banner. Paths are under /__sandbox; `a|b` in a method or a
 * path segment stands for each of them (test/cli/mock.test.ts checks that this covers every route of controlRouter).
 */
export const controlCalls: readonly { call: string; what: string }[] = [
  { call: 'POST /invoices/{invoice}/pay|expire|fail', what: 'move an invoice' },
  { call: 'POST /orders/{invoice}/complete|fail', what: 'move a paid order (fail refunds it)' },
  { call: 'POST /deposits', what: 'add a deposit: {"amount": 50000, "paid": true, "account": "demo"}' },
  { call: 'POST /clock', what: 'move the clock on: {"advance_seconds": 3600}' },
  { call: 'POST /reset', what: 'back to how it started: seed, faults, empty journal (?keep=state,faults,requests)' },
  { call: 'GET|PUT /state', what: 'the whole state as a snapshot; load one (a named starting state)' },
  { call: 'GET|PUT|POST|DELETE /faults', what: 'injected faults and how often each fired; POST adds rules' },
  { call: 'GET /accounts|orders|invoices|deposits', what: 'the state, newest first (?account=&status=&limit=)' },
  { call: 'GET /invoices/{invoice}', what: 'one invoice' },
  { call: 'GET /clock|fixtures', what: 'the clock; the test accounts and bodies' },
  { call: 'GET|DELETE /requests', what: 'the request journal (?method=&status=&path=)' },
  { call: 'GET /requests/{id}|stream', what: 'one request; new ones as they come (SSE)' },
];

/** The banner's lines: aligned, with `<invoice>` for a path parameter as the CLI's help writes it. */
export function controlCallLines(): string[] {
  const calls = controlCalls.map(({ call, what }) => ({ call: call.replace(/\{(\w+)\}/g, '<$1>'), what }));
  const width = Math.max(...calls.map((c) => c.call.length));
  return calls.map(({ call, what }) => `  ${call.padEnd(width)}   ${what}`);
}
