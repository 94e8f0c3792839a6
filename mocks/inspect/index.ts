/**
 * Looking at the sandbox without changing it: the request journal (request-journal.ts) and its redaction, checks on
 * it for tests (verify.ts), views of accounts and invoices (state-views.ts) and "did you mean" for a wrong route
 * (near-miss.ts).
 * This index only documents the folder: import the module you need.
 */
export {};
