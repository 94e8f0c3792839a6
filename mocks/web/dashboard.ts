import { CONTROL_HEADER, CONTROL_PREFIX } from '../../src/contract/sandbox-control.js';
import type { SandboxReply } from '../core/exchange.js';
import { CONTROL_SECRET_DATA, CONTROL_SECRET_SCRIPT, htmlReply, inlineAsset, type WebPage } from './html-reply.js';
import body from './dashboard/body.html?raw';
import script from './dashboard/script.js?raw';
import style from './dashboard/style.css?raw';

/** The dashboard's address: the control API's root, `{base}/__sandbox/`. */
export const DASHBOARD_PATH = `${CONTROL_PREFIX}/`;

/**
 * The sandbox's dashboard: accounts, invoices with their moves, the live request log with a detail view, faults, the
 * clock, reset and the fixtures. One HTML document with inline style and script and no build step in the browser
 * (its parts are files in ./dashboard/, put into the bundle as text). It reads and drives the same control API
 * scripts use (no second API), and renders every value with textContent, never as HTML.
 */
export function dashboardPage(): SandboxReply {
  return htmlReply(200, PAGE);
}

const PAGE: WebPage = {
  title: 'topup sandbox',
  style: inlineAsset('style', style),
  body,
  scripts: [CONTROL_SECRET_SCRIPT, inlineAsset('script', script)],
  data: { api: CONTROL_PREFIX, controlHeader: CONTROL_HEADER, ...CONTROL_SECRET_DATA },
};
