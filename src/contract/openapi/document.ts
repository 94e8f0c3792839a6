import { INTERFACE_VERSION } from '../version.js';
import { infoDescription } from './info-description.js';
import { tagList } from './operation-descriptions.js';
import { pathItems } from './operations.js';
import { errorResponses, rateLimitHeaderComponents } from './responses.js';
import { componentSchemas } from './schemas.js';
import { securitySchemes } from './security.js';
import type { OpenApiDocument } from './types.js';

/** The whole document: info, servers, tags, paths and components, each from the module that owns it. */
export function buildOpenApiDocument(): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Credit top-up shop API',
      version: INTERFACE_VERSION,
      description: infoDescription(),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      {
        url: 'https://{host}',
        description: 'The service. The sandbox (`topup mock serve` or the in-process sandbox) serves the same paths at its own base URL.',
        variables: { host: { default: 'topup.example', description: 'Host name of the service.' } },
      },
    ],
    tags: tagList(),
    paths: pathItems(),
    components: {
      schemas: componentSchemas(),
      responses: errorResponses(),
      headers: rateLimitHeaderComponents(),
      securitySchemes: securitySchemes(),
    },
  };
}
