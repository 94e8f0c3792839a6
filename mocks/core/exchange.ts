import type { ErrorCode } from '../../src/contract/index.js';

/** Who may drive a served sandbox's control API and open its pages (enforced by rules/control-guard.ts). */
export interface ControlGuard {
  /** Host names (without port) that may reach the control API besides the loopback ones. */
  readonly allowedHosts: ReadonlySet<string>;
  /** When set, every control call must present it (CONTROL_SECRET_HEADER); compared in constant time. */
  readonly secret?: string | undefined;
}

/** What the sandbox core receives: a transport-free HTTP request. Header names are lower case. */
/** What the sandbox reads of a query string. Read-only: a parsed URL's query may be shared (assembly/request-url.ts). */
export type QueryView = Pick<URLSearchParams, 'get' | 'getAll' | 'has' | 'keys'>;

export interface SandboxRequest {
  method: string;
  /**
   * Absolute URL. Its origin is the server's own (the node:http adapter builds it from the request's path alone, never
   * from Host) and is the base the sandbox writes into invoice links, unless the sandbox has a `publicUrl`.
   */
  url: string;
  headers: Readonly<Record<string, string>>;
  body: string | null;
  /** The caller's address, for the per-address limits of public endpoints. */
  clientAddress?: string;
  /**
   * Who may drive the control API and open the sandbox's pages: host names besides the loopback ones, and the control
   * secret if one is set. Set by transports that listen on a network (the node:http adapter); in-process requests
   * have none to fear (rules/control-guard.ts).
   */
  controlGuard?: ControlGuard;
  /**
   * The control secret the caller presented (the X-Sandbox-Control-Secret header). Taken out of `headers` by the
   * transport, so that the request journal, the dashboard and `topup mock logs` never hold it.
   */
  presentedControlSecret?: string;
}

/*
 * Words, used the same way in every layer: a *reply* is what the sandbox sends back (SandboxReply: status, headers,
 * body); a *response* is how an exchange ends, which is a reply or a dropped connection (SandboxResponse). The client
 * and the CLI, which only ever see what arrives, call it an *answer*.
 */

/** What the sandbox sends back to one request. */
export interface SandboxReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The connection is cut without an answer (an injected fault). */
export interface DroppedReply {
  drop: true;
}

/** How an exchange ends: a reply, or a connection cut without one. */
export type SandboxResponse = SandboxReply | DroppedReply;

export function isDropped(response: SandboxResponse): response is DroppedReply {
  return 'drop' in response;
}

/** The caller's address for requests made in this process: the fetch adapters, msw handlers and the offline CLI. */
export const IN_PROCESS_ADDRESS = '127.0.0.1';

/** GET and HEAD carry no body to the core, whatever the caller attached, as over HTTP. */
export function carriesBody(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD';
}

/** A request made in this process, as the core takes it. */
export function inProcessRequest(
  method: string,
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string | null,
): SandboxRequest {
  return { method, url, headers, body: carriesBody(method) ? body : null, clientAddress: IN_PROCESS_ADDRESS };
}

/** A WHATWG Request (the fetch adapter's, an msw handler's) as the core takes it. */
export async function fromFetchRequest(request: Request): Promise<SandboxRequest> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return inProcessRequest(request.method, request.url, headers, carriesBody(request.method) ? await request.text() : null);
}

/** A dropped connection as a fetch reports it: fetch's own network error, a TypeError. */
export function droppedFetchError(): TypeError {
  return new TypeError('fetch failed', { cause: new Error('the sandbox dropped the connection') });
}

/** A refusal with an error envelope. Thrown by rules; turned into a reply in one place. */
/** Codes only the sandbox's control API gives (not part of the interface, so not in its OpenAPI document). */
export type SandboxErrorCode =
  'INVALID_STATE' | 'HOST_NOT_ALLOWED' | 'CROSS_SITE_REQUEST' | 'CONTROL_SECRET_REQUIRED' | 'CONTROL_SECRET_WRONG';

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly code?: ErrorCode | SandboxErrorCode,
    readonly fields?: readonly string[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';

export function jsonReply(status: number, payload: unknown, headers: Record<string, string> = {}): SandboxReply {
  return { status, headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store', ...headers }, body: JSON.stringify(payload) };
}

/** `data` already serialised, for answers that are the same for every request (see routes/public.ts). */
export class SerializedData {
  #message: string | undefined;
  #envelope = '';
  constructor(readonly json: string) {}

  /**
   * The whole success envelope around it, exactly what JSON.stringify would write, made once per message: every
   * answer is then the same string, which costs no copy to send and none to keep in the request journal.
   */
  envelope(message: string): string {
    if (message !== this.#message) {
      this.#envelope = `{"success":true,"message":${JSON.stringify(message)},"data":${this.json}}`;
      this.#message = message;
    }
    return this.#envelope;
  }
}

export function successReply(status: number, message: string, data: unknown, headers?: Record<string, string>): SandboxReply {
  if (!(data instanceof SerializedData)) return jsonReply(status, { success: true, message, data }, headers);
  return { status, headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store', ...headers }, body: data.envelope(message) };
}

export function errorReply(error: ApiError, headers: Record<string, string> = {}): SandboxReply {
  const detail =
    error.code === undefined
      ? undefined
      : error.fields === undefined
        ? { code: error.code }
        : { code: error.code, fields: [...error.fields] };
  const payload =
    detail === undefined ? { success: false, message: error.message } : { success: false, message: error.message, error: detail };
  return jsonReply(error.status, payload, Object.assign({}, headers, error.headers));
}
