/**
 * The OpenAPI document of the interface. Built in ./openapi/: document.ts assembles it, schemas.ts converts the
 * registered schemas, operations.ts walks the endpoint table, responses.ts owns the rate-limit headers and error
 * answers, security.ts the bearer scheme, and the prose lives in info-description.ts and operation-descriptions.ts.
 */

export { INTERFACE_VERSION } from './version.js';
export { buildOpenApiDocument } from './openapi/document.js';
export type {
  JsonSchema,
  OpenApiDocument,
  OpenApiHeader,
  OpenApiMediaType,
  OpenApiOperation,
  OpenApiParameter,
  OpenApiPathItem,
  OpenApiReference,
  OpenApiResponse,
} from './openapi/types.js';
