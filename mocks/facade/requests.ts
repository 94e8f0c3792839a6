/** The request journal as the CLI reads it: its entries, the filter a query names, and the selection it answers. */
export { compileFilter, type JournalEntry } from '../inspect/request-journal.js';
export { filterFromQuery, selectRequests } from '../routes/control.js';
export type { RequestLogFile } from '../state/request-log.js';
