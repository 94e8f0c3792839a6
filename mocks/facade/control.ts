/** The shapes the sandbox's control moves answer with, as the CLI's control commands print them. */
export type { Fixtures } from '../store/fixtures.js';
export type { InvoiceView } from '../inspect/state-views.js';
