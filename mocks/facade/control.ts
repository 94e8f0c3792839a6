/** The shapes the sandbox's control moves answer with, as the CLI's control commands print them. */
export type { Fixtures } from '../store/fixtures.js';
export type { InvoiceView } from '../inspect/state-views.js';
/** The compact fault syntax of `mock serve --faults`, read and written by one parser for `topup mock faults`. */
export { parseFaultSpec, faultSpecOf, FaultConfigError, type FaultConfig, type FaultRule, type FaultStats } from '../core/faults.js';
