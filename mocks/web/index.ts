/**
 * The sandbox's HTML pages: the dashboard (dashboard.ts) and the invoice page (invoice-page.ts), with their markup,
 * style and script as files inlined at build time, and the answer that carries a page with its CSP (html-reply.ts).
 * This index only documents the folder: import the module you need.
 */
export {};
