import { endpointById, type Endpoint, type EndpointId } from '../../src/contract/endpoints.js';
import { ApiError, type QueryView } from '../core/exchange.js';
import { leanData } from '../routes/lean.js';
import { validationError } from '../rules/order-request.js';

/**
 * What the pipeline needs of the endpoints' zod schemas: a query parsed by its contract schema, and an answer cut to
 * what the interface document guarantees (the lean sandbox). Loaded on first need (mocks/assembly/pipeline.ts):
 * building the contract's schemas was most of an offline command's start-up, and a read without a query needs none.
 */
export function parseQuery(id: EndpointId, params: QueryView): Record<string, unknown> {
  const endpoint: Endpoint = endpointById[id];
  const schema = endpoint.query;
  if (schema === undefined) return {};
  const raw: Record<string, string> = {};
  for (const name of Object.keys(schema.shape)) {
    const values = params.getAll(name);
    if (values.length > 1) throw new ApiError(422, `Query parameter ${name} was given more than once.`, 'VALIDATION_FAILED', [name]);
    if (values.length === 1) raw[name] = values[0]!;
  }
  const result = schema.safeParse(raw);
  if (!result.success) throw validationError(result.error, raw);
  return result.data;
}

/** An answer's `data` as a minimal server would send it (mocks/routes/lean.ts). */
export function leanAnswer(id: EndpointId, data: unknown): unknown {
  return leanData(endpointById[id].data, data);
}
