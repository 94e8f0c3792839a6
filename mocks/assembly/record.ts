import type { SandboxRequest, SandboxResponse } from '../core/exchange.js';
import type { RequestUrl } from './request-url.js';
import type { RequestJournal, RequestNotes } from '../inspect/request-journal.js';
import { isControlPath, JOURNAL_PATH, RESET_PATH } from '../routes/control.js';
import { parseResetKeep } from '../../src/contract/sandbox-control.js';

/** One answered request as the request journal keeps it, unless it is the sandbox's own tools reading it. */
export function recordRequest(
  journal: RequestJournal,
  request: SandboxRequest,
  url: RequestUrl,
  at: number,
  /** How long answering it took (on the monotonic clock), in milliseconds. */
  durationMs: number,
  reply: SandboxResponse,
  notes: RequestNotes,
): void {
  if (!journal.active || isOwnRead(request, url, reply) || clearedByReset(request, url, reply)) return;
  // Built only when read: a busy sandbox keeps references, not copies (BENCHMARKS.md, journal cost).
  const dropped = 'drop' in reply;
  journal.keep({
    at,
    durationMs,
    method: request.method,
    path: url.pathname,
    search: url.search,
    headers: request.headers,
    requestBody: request.body,
    status: dropped ? null : reply.status,
    responseBody: dropped ? null : reply.body,
    notes,
  });
}

/**
 * Reading the control API (the dashboard, `topup mock logs`) and clearing the journal are not what a bot did.
 * A control read that went wrong (a mistyped path) is shown, though.
 */
function isOwnRead(request: SandboxRequest, url: RequestUrl, reply: SandboxResponse): boolean {
  return (
    url.pathname.startsWith(JOURNAL_PATH) ||
    (isControlPath(url.pathname) && (request.method === 'GET' || request.method === 'HEAD') && !('drop' in reply) && reply.status < 400)
  );
}

/** A reset that emptied the journal leaves it empty: the reset itself is not what a bot did either. */
function clearedByReset(request: SandboxRequest, url: RequestUrl, reply: SandboxResponse): boolean {
  if (request.method !== 'POST' || url.pathname !== RESET_PATH || 'drop' in reply || reply.status >= 400) return false;
  const parsed = parseResetKeep(url.searchParams.getAll('keep').join(','));
  return 'keep' in parsed && !parsed.keep.includes('requests');
}
