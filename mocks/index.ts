/** `topup/mocks`: the stateful sandbox for your own tests (msw handlers, a fetch, or a real HTTP server). */
export { createSandbox, DEFAULT_SANDBOX_URL, type Sandbox, type SandboxOptions } from './sandbox.js';
export { createHandlers, type HandlerOptions } from './adapters/msw.js';
export { createFetch } from './adapters/fetch.js';
export { startHttpSandbox, type HttpSandbox, type HttpSandboxOptions } from './adapters/http.js';
export type { SandboxControl, DepositRequest } from './control.js';
export { fixtureAccount, type Fixtures, type FixtureAccount, type FixtureAccountName, type FixtureCase } from './fixtures.js';
export type { SandboxRequest, SandboxResponse, SandboxReply, DroppedReply } from './exchange.js';
export { takeSnapshot, restoreSnapshot, applyChanges, SnapshotError, type SandboxSnapshot, type SandboxChanges, type StateWriter } from './snapshot.js';
export { openStateFile, readStateFile, writeStateFile, StateLockedError, type StateFile, type OpenStateFileOptions } from './state.js';
export { quote, PRICE_PER_CREDIT, discountTiers } from './rules/pricing.js';
export { REVOKED_TOKEN } from './seed.js';
export { FaultInjector, parseFaultSpec, validateFaultConfig, FaultConfigError, type FaultConfig, type FaultRule, type FaultKind, type FaultStats } from './faults.js';
// What sandbox.control's moves reject with: the client's own classes, so one `catch` serves both.
export { TopupError, AuthError, ConflictError, NotFoundError, ValidationError, isTopupError, type ErrorKind } from '../src/errors.js';
