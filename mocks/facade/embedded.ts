/** The embedded sandbox behind offline commands: opened on a state file, with the request log beside it. */
export { DEFAULT_SANDBOX_URL, type Sandbox } from '../assembly/sandbox.js';
// The persistent sandbox (opened once, or per operation as a session) and the four ways opening its state can fail.
export * from '../assembly/persistent-sandbox.js';
export { seedAccount } from '../store/seed.js';
export { STATE_LOCK_WAIT_MS } from '../state/lock.js';
export { requestLogFile, type RequestLogFile } from '../state/request-log.js';
