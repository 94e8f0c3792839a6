import type { z } from 'zod';
import { type Endpoint, endpoints } from '../endpoints.js';
import { pathParameterExample, requestBodyExample, successExample } from './examples.js';
import { operationDescription, queryParameterNotes, successDescription } from './operation-descriptions.js';
import { operationErrorResponses, responseHeaders } from './responses.js';
import { componentId, JSON_MEDIA_TYPE, queryParameterSchema, schemaRef } from './schemas.js';
import { SECURITY_SCHEME } from './security.js';
import type { JsonSchema, OpenApiOperation, OpenApiParameter, OpenApiPathItem, OpenApiResponse } from './types.js';

/** paths: one operation per entry of the endpoint table, with its parameters, request body and answers. */

/** The endpoint table widened to its interface, so optional members can be read on every entry. */
const allEndpoints: readonly Endpoint[] = endpoints;

export function pathItems(): Record<string, OpenApiPathItem> {
  const paths: Record<string, OpenApiPathItem> = {};
  for (const endpoint of allEndpoints) {
    const item = (paths[endpoint.path] ??= {});
    item[endpoint.method === 'GET' ? 'get' : 'post'] = operation(endpoint);
  }
  return paths;
}

function operation(endpoint: Endpoint): OpenApiOperation {
  const parameters = [...pathParameters(endpoint.path), ...queryParameters(endpoint), ...headerParameters(endpoint)];
  return {
    operationId: endpoint.id,
    tags: [endpoint.tag],
    summary: endpoint.summary,
    description: operationDescription(endpoint),
    // Public operations say so: no security requirement at all, rather than none given.
    security: endpoint.auth ? [{ [SECURITY_SCHEME]: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(endpoint.body ? { requestBody: requestBody(endpoint, endpoint.body) } : {}),
    responses: { ...successResponses(endpoint), ...operationErrorResponses(endpoint.errors) },
  };
}

const pathParameterSchemas: Readonly<Record<string, { description: string; schema: JsonSchema }>> = {
  invoice: { description: 'An invoice code of this account.', schema: schemaRef('InvoiceCode') },
  slug: { description: 'The slug of a published article.', schema: { type: 'string' } },
};

function pathParameters(path: string): OpenApiParameter[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name = '']) => {
    const known = pathParameterSchemas[name];
    if (known === undefined) throw new Error(`Path parameter {${name}} of ${path} has no schema in openapi/operations.ts.`);
    return { name, in: 'path', required: true, ...known, example: pathParameterExample(name) };
  });
}

function queryParameters(endpoint: Endpoint): OpenApiParameter[] {
  if (endpoint.query === undefined) return [];
  return Object.entries(endpoint.query.shape).map(([name, schema]) => {
    const property = schema as z.ZodType;
    const description = property.description ?? queryParameterNotes[name];
    return {
      name,
      in: 'query',
      required: !property.safeParse(undefined).success,
      ...(description === undefined ? {} : { description }),
      schema: queryParameterSchema(property),
    };
  });
}

function headerParameters(endpoint: Endpoint): OpenApiParameter[] {
  if (endpoint.id !== 'createOrder') return [];
  return [
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'One key per intended order, reused on every retry of it. Keys are kept per account for 24 hours.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
    },
    {
      name: 'X-Chat-User-ID',
      in: 'header',
      required: false,
      description: 'Required when `payment_method` is `balance`: the chat-platform user id linked to the account that owns the token.',
      schema: { type: 'string', minLength: 1 },
    },
  ];
}

function requestBody(endpoint: Endpoint, body: z.ZodType): NonNullable<OpenApiOperation['requestBody']> {
  return {
    required: true,
    content: {
      [JSON_MEDIA_TYPE]: {
        schema: schemaRef(componentId(body, `Request body of ${endpoint.id}`)),
        example: requestBodyExample(endpoint.id),
      },
    },
  };
}

function successResponses(endpoint: Endpoint): Record<string, OpenApiResponse> {
  const dataId = componentId(endpoint.data, `Data schema of ${endpoint.id}`);
  return Object.fromEntries(
    endpoint.success.map((status) => [
      String(status),
      {
        description: successDescription(endpoint, status),
        headers: responseHeaders(status),
        content: { [JSON_MEDIA_TYPE]: { schema: successEnvelopeSchema(dataId), example: successExample(endpoint.id, status) } },
      },
    ]),
  );
}

function successEnvelopeSchema(dataId: string): JsonSchema {
  return {
    type: 'object',
    properties: { success: { type: 'boolean', const: true }, message: { type: 'string' }, data: schemaRef(dataId) },
    required: ['success', 'message', 'data'],
    additionalProperties: false,
  };
}
