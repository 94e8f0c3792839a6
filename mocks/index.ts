/** `topup/mocks`: the stateful sandbox for your own tests (msw handlers, a fetch, or a real HTTP server). */
export { createSandbox, DEFAULT_SANDBOX_URL, type Sandbox, type SandboxOptions } from './assembly/sandbox.js';
export { createHandlers, type HandlerOptions } from './adapters/msw.js';
export { createFetch } from './adapters/fetch.js';
export { startHttpSandbox, type HttpSandbox, type HttpSandboxOptions } from './adapters/http.js';
export type { SandboxControl, DepositRequest } from './routes/control-moves.js';
export {
  fixtureAccount,
  type Fixtures,
  type FixtureAccount,
  type FixtureAccountName,
  type FixtureCase,
  type MagicOrderFixture,
} from './store/fixtures.js';
// Magic test values: orders for these passes end a chosen way by themselves (fail, expire, refund, slow delivery, 422).
export {
  magicOrders,
  magicValues,
  INVOICE_FAILS_AFTER_MS,
  INVOICE_EXPIRES_AFTER_MS,
  DELIVERY_TAKES_MS,
  type MagicOutcome,
  type MagicValue,
  type MagicOrderBody,
} from './store/magic-values.js';
export type { SandboxRequest, SandboxResponse, SandboxReply, DroppedReply } from './core/exchange.js';
export {
  takeSnapshot,
  restoreSnapshot,
  applyChanges,
  SnapshotError,
  type SandboxSnapshot,
  type SandboxChanges,
  type StateWriter,
} from './state/snapshot.js';
export { openStateFile, readStateFile, writeStateFile, type StateFile, type OpenStateFileOptions } from './state/file.js';
export { StateLockedError } from './state/lock.js';
export { openPersistentSandbox, type PersistentSandbox, type PersistentSandboxOptions } from './assembly/persistent-sandbox.js';
export { snapshotWriter } from './state/flush.js';
export { quote, PRICE_PER_CREDIT, discountTiers } from './rules/pricing.js';
export { REVOKED_TOKEN } from './store/seed.js';
export {
  FaultInjector,
  parseFaultSpec,
  validateFaultConfig,
  FaultConfigError,
  FAULT_ROUTE_IDS,
  type FaultConfig,
  type FaultRule,
  type FaultRouteId,
  type FaultWhen,
  type FaultKind,
  type FaultStats,
  type FaultRuleStats,
} from './core/faults.js';
// What sandbox.control's moves reject with: the client's own classes, so one `catch` serves both.
export { TopupError, AuthError, ConflictError, NotFoundError, ValidationError, isTopupError, type ErrorKind } from '../src/errors.js';
// The request journal: sandbox.requests, GET /__sandbox/requests, and verification for tests.
export {
  RequestJournal,
  RequestFilterError,
  type JournalEntry,
  type RequestFilter,
  type JournalOptions,
} from './inspect/request-journal.js';
export { expectRequests, VerificationError, type RequestExpectation } from './inspect/verify.js';
