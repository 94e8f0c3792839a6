/**
 * The shop's rules over the store: authentication (auth.ts), worlds (worlds.ts), pricing, ledger and payment, the
 * order and invoice lifecycle and its timed moves, idempotency, rate limits, request-body and header rules, and who may
 * reach the control API (control-guard.ts). Rules know nothing of routes, the state file or the request journal.
 * This index only documents the folder: import the module you need.
 */
export {};
