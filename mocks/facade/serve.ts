/** `topup mock serve` and the state commands: the sandbox over HTTP, its faults, its state file. */
export { createSandbox, type Sandbox } from '../assembly/sandbox.js';
export { startHttpSandbox } from '../adapters/http.js';
// The persistent sandbox (opened once, or per operation as a session) and the four ways opening its state can fail.
export * from '../assembly/persistent-sandbox.js';
export { parseFaultSpec, FaultConfigError } from '../core/faults.js';
export { isLoopbackHost } from '../rules/control-guard.js';
export { controlCallLines } from '../routes/control-calls.js';
export { publicOrigin } from '../core/public-origin.js';
export { writeStateFile } from '../state/file.js';
export { announce, removeAnnouncement } from '../state/announcement.js';
export { requestLogFile } from '../state/request-log.js';
