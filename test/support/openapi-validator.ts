import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import {
  buildOpenApiDocument,
  type JsonSchema,
  type OpenApiDocument,
  type OpenApiHeader,
  type OpenApiOperation,
  type OpenApiReference,
  type OpenApiResponse,
} from '../../src/contract/openapi.js';

/** One request and its answer, as the sandbox's handle() sees them. */
export interface HttpExchange {
  method: string;
  url: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface ContractCheckOptions {
  /** Turn off for sandboxes created with `rateLimit: false`, which send no X-RateLimit-* headers. */
  requireRateLimitHeaders?: boolean;
}

export interface ContractValidator {
  /** Human-readable problems; empty when the answer matches the document. */
  check(exchange: HttpExchange, options?: ContractCheckOptions): string[];
}

const API_PREFIX = '/api/v1';
const JSON_MEDIA_TYPE = 'application/json';
const RATE_LIMIT_HEADER_NAMES = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;
/**
 * Answers that may come without X-RateLimit-* ("sent when available"): 400s refused before the request is
 * counted (a token in the URL, a malformed header) and server faults.
 */
const UNCOUNTED_STATUSES: ReadonlySet<number> = new Set([400, 500, 502, 503, 504]);
/** A path without a route, or a method the path lacks, may still meet a server fault. */
const FAULT_STATUSES = [500, 502, 503, 504] as const;

export function createContractValidator(
  doc: OpenApiDocument = buildOpenApiDocument(),
  defaults: ContractCheckOptions = {},
): ContractValidator {
  const checker: Checker = { doc, schemas: new SchemaCache(doc), routes: routeTable(doc) };
  return {
    check(exchange, options = {}) {
      const path = new URL(exchange.url, 'http://contract.invalid').pathname;
      if (path !== API_PREFIX && !path.startsWith(`${API_PREFIX}/`)) return [];
      const requireRateLimitHeaders = options.requireRateLimitHeaders ?? defaults.requireRateLimitHeaders ?? true;
      const problems = [...contentTypeProblems(exchange.headers), ...answerProblems(checker, exchange, path, requireRateLimitHeaders)];
      return problems.map((problem) => `${exchange.method} ${path} → ${exchange.status}: ${problem}`);
    },
  };
}

interface Checker {
  doc: OpenApiDocument;
  schemas: SchemaCache;
  routes: Route[];
}

function answerProblems(checker: Checker, exchange: HttpExchange, path: string, requireRateLimitHeaders: boolean): string[] {
  const route = checker.routes.find((r) => r.pattern.test(path));
  if (route === undefined) return routelessProblems(exchange, checker.schemas, 404);
  const operation = route.item[exchange.method.toLowerCase() as keyof Route['item']];
  if (operation === undefined)
    return [...routelessProblems(exchange, checker.schemas, 405), ...allowProblems(exchange.headers, route.item)];
  return operationProblems(exchange, operation, checker, requireRateLimitHeaders);
}

// ---- routing ------------------------------------------------------------------------------------

interface Route {
  pattern: RegExp;
  item: Partial<Record<'get' | 'post', OpenApiOperation>>;
}

function routeTable(doc: OpenApiDocument): Route[] {
  return Object.entries(doc.paths).map(([template, item]) => ({ pattern: templatePattern(template), item }));
}

function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{\w+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

// ---- checks -------------------------------------------------------------------------------------

function contentTypeProblems(headers: Record<string, string>): string[] {
  const contentType = headerValue(headers, 'Content-Type');
  return contentType?.startsWith(JSON_MEDIA_TYPE) ? [] : [`Content-Type is ${contentType ?? 'missing'}, not ${JSON_MEDIA_TYPE}`];
}

/** Paths without a route and methods a path lacks belong to no operation: an error envelope with 404 or 405. */
function routelessProblems(exchange: HttpExchange, schemas: SchemaCache, expected: 404 | 405): string[] {
  const allowed: readonly number[] = [expected, ...FAULT_STATUSES];
  const statusProblems = allowed.includes(exchange.status) ? [] : [`expected status ${expected} for a request that matches no operation`];
  return [...statusProblems, ...bodyProblems(exchange.body, schemas.errorEnvelope())];
}

function allowProblems(headers: Record<string, string>, item: Route['item']): string[] {
  const documented = Object.keys(item).map((method) => method.toUpperCase());
  const allow = (headerValue(headers, 'Allow') ?? '').split(',').map((method) => method.trim());
  const missing = documented.filter((method) => !allow.includes(method));
  return missing.length === 0 ? [] : [`Allow header ${JSON.stringify(headerValue(headers, 'Allow') ?? null)} lacks ${missing.join(', ')}`];
}

function operationProblems(
  exchange: HttpExchange,
  operation: OpenApiOperation,
  checker: Checker,
  requireRateLimitHeaders: boolean,
): string[] {
  const documented = operation.responses[String(exchange.status)];
  if (documented === undefined) {
    const statuses = Object.keys(operation.responses).join(', ');
    return [`status ${exchange.status} is not documented for ${operation.operationId} (documented: ${statuses})`];
  }
  const response = resolveResponse(checker.doc, documented);
  return [
    ...bodyProblems(exchange.body, checker.schemas.response(operation.operationId, exchange.status, response)),
    ...headerProblems(exchange, response, checker, requireRateLimitHeaders),
  ];
}

function bodyProblems(body: string, validate: ValidateFunction): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [`body is not JSON: ${JSON.stringify(body.slice(0, 80))}`];
  }
  return validate(parsed) ? [] : (validate.errors ?? []).map((error) => `body${describeError(error)}`);
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath === '' ? '' : ` at ${error.instancePath}`;
  const extra = error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : '';
  return `${where} ${error.message ?? error.keyword}${extra}`;
}

function headerProblems(exchange: HttpExchange, response: OpenApiResponse, checker: Checker, requireRateLimitHeaders: boolean): string[] {
  return Object.entries(response.headers).flatMap(([name, documented]) => {
    const value = headerValue(exchange.headers, name);
    if (value === undefined) {
      return isRequiredHeader(name, exchange.status, requireRateLimitHeaders) ? [`header ${name} is missing`] : [];
    }
    const header = resolveHeader(checker.doc, documented);
    const validate = checker.schemas.header(name, header.schema);
    return validate(headerAsJson(value, header.schema))
      ? []
      : [`header ${name} is ${JSON.stringify(value)}, not ${JSON.stringify(header.schema)}`];
  });
}

function isRequiredHeader(name: string, status: number, requireRateLimitHeaders: boolean): boolean {
  if (name === 'Retry-After') return true;
  return requireRateLimitHeaders && (RATE_LIMIT_HEADER_NAMES as readonly string[]).includes(name) && !UNCOUNTED_STATUSES.has(status);
}

/** Header values are text; an integer header must be written as digits only. */
function headerAsJson(value: string, schema: JsonSchema): unknown {
  return schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
}

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return Object.entries(headers).find(([key]) => key.toLowerCase() === wanted)?.[1];
}

// ---- references ---------------------------------------------------------------------------------

function isReference(value: object): value is OpenApiReference {
  return '$ref' in value;
}

function referencedName(ref: string, prefix: string): string {
  if (!ref.startsWith(prefix)) throw new Error(`Expected a reference into ${prefix}, got ${ref}.`);
  return ref.slice(prefix.length);
}

function resolveResponse(doc: OpenApiDocument, response: OpenApiResponse | OpenApiReference): OpenApiResponse {
  if (!isReference(response)) return response;
  const name = referencedName(response.$ref, '#/components/responses/');
  const resolved = doc.components.responses[name];
  if (resolved === undefined) throw new Error(`${response.$ref} is not in the document.`);
  return resolved;
}

function resolveHeader(doc: OpenApiDocument, header: OpenApiHeader | OpenApiReference): OpenApiHeader {
  if (!isReference(header)) return header;
  const name = referencedName(header.$ref, '#/components/headers/');
  const resolved = doc.components.headers[name];
  if (resolved === undefined) throw new Error(`${header.$ref} is not in the document.`);
  return resolved;
}

// ---- schemas ------------------------------------------------------------------------------------

/** One Ajv instance holding every component; each response schema is compiled once. */
class SchemaCache {
  readonly #ajv: Ajv2020;
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(doc: OpenApiDocument) {
    // Strict, but type unions (["string", "null"]) are how OpenAPI 3.1 writes nullable fields.
    this.#ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
    addFormats.default(this.#ajv);
    for (const [id, schema] of Object.entries(doc.components.schemas)) {
      this.#ajv.addSchema(schema, `#/components/schemas/${id}`);
    }
  }

  /** Compiles a component by id; throws when Ajv (strict) refuses it. */
  component(id: string): ValidateFunction {
    const validate = this.#ajv.getSchema(`#/components/schemas/${id}`);
    if (validate === undefined) throw new Error(`Component ${id} is not in the document.`);
    return validate;
  }

  errorEnvelope(): ValidateFunction {
    return this.component('ErrorEnvelope');
  }

  response(operationId: string, status: number, response: OpenApiResponse): ValidateFunction {
    const schema = response.content[JSON_MEDIA_TYPE]?.schema;
    if (schema === undefined) throw new Error(`${operationId} ${status} documents no ${JSON_MEDIA_TYPE} body.`);
    return this.#compile(`response ${operationId} ${status}`, schema);
  }

  header(name: string, schema: JsonSchema): ValidateFunction {
    return this.#compile(`header ${name}`, schema);
  }

  /** Any schema of the document, its references resolved against the document's components. */
  schema(schema: JsonSchema): ValidateFunction {
    return this.#compile(`schema ${JSON.stringify(schema)}`, schema);
  }

  #compile(key: string, schema: JsonSchema): ValidateFunction {
    let validate = this.#compiled.get(key);
    if (validate === undefined) {
      validate = this.#ajv.compile(schema);
      this.#compiled.set(key, validate);
    }
    return validate;
  }
}

/** Compiles every component of the document under Ajv's strict mode; throws on the first one it refuses. */
/** Compiles any schema of the document (a parameter's, a media type's), with its `$ref`s resolved (Ajv strict). */
export function schemaCompiler(doc: OpenApiDocument): (schema: JsonSchema) => ValidateFunction {
  const schemas = new SchemaCache(doc);
  return (schema) => schemas.schema(schema);
}

export function compileComponents(doc: OpenApiDocument = buildOpenApiDocument()): Record<string, ValidateFunction> {
  const schemas = new SchemaCache(doc);
  return Object.fromEntries(Object.keys(doc.components.schemas).map((id) => [id, schemas.component(id)]));
}

// ---- wiring a sandbox ---------------------------------------------------------------------------

interface SandboxRequestLike {
  method: string;
  url: string;
}
type SandboxResponseLike = { status: number; headers: Record<string, string>; body: string } | { drop: true };

export interface ContractCheckWiring extends ContractCheckOptions {
  validator?: ContractValidator;
}

let sharedValidator: ContractValidator | undefined;

/**
 * Wraps a sandbox's handle() so that every answer it gives is checked against the document.
 * `const { handle, problems } = withContractCheck(sandbox.handle.bind(sandbox))`; assert `problems` is empty.
 */
export function withContractCheck<Req extends SandboxRequestLike, Res extends SandboxResponseLike>(
  handle: (request: Req) => Promise<Res>,
  { validator, ...options }: ContractCheckWiring = {},
): { handle: (request: Req) => Promise<Res>; problems: string[] } {
  // Compiling the document takes a while; every wrapped sandbox can share one validator.
  const checker = validator ?? (sharedValidator ??= createContractValidator());
  const problems: string[] = [];
  const checked = async (request: Req): Promise<Res> => {
    const response = await handle(request);
    if (!('drop' in response)) {
      problems.push(...checker.check({ method: request.method, url: request.url, ...response }, options));
    }
    return response;
  };
  return { handle: checked, problems };
}
