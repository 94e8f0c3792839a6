import { z } from 'zod';
import { components } from '../common.js';
import { type Endpoint, endpoints } from '../endpoints.js';
import type { JsonSchema, OpenApiReference } from './types.js';

/** components.schemas: the contract's registered schemas as JSON Schema, and references to them. */

export const JSON_MEDIA_TYPE = 'application/json';
/** The endpoint table widened to its interface, so optional members can be read on every entry. */
const allEndpoints: readonly Endpoint[] = endpoints;

function schemaPointer(id: string): string {
  return `#/components/schemas/${id}`;
}

export function schemaRef(id: string): OpenApiReference {
  return { $ref: schemaPointer(id) };
}

/** The component id of a registered schema; an unregistered one is a contract bug. */
export function componentId(schema: z.ZodType, usedAs: string): string {
  const id = components.get(schema)?.id;
  if (id === undefined) throw new Error(`${usedAs} is not registered in the components registry (src/contract/common.ts).`);
  return id;
}

/** Request bodies are read as input (defaults and optional fields are not required); answers as output. */
export function componentSchemas(): Record<string, JsonSchema> {
  const output = registrySchemas('output');
  const input = registrySchemas('input');
  const bodyIds = new Set(allEndpoints.flatMap((e) => (e.body ? [componentId(e.body, `Request body of ${e.id}`)] : [])));
  const schemas: Record<string, JsonSchema> = {};
  for (const id of Object.keys(output).sort()) {
    schemas[id] = withoutIdentity((bodyIds.has(id) ? input : output)[id] ?? {});
  }
  return schemas;
}

function registrySchemas(io: 'input' | 'output'): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(components, {
    uri: schemaPointer,
    target: 'draft-2020-12',
    io,
    // The component descriptions live in our registry, not the global one that toJSONSchema reads.
    override: ({ zodSchema, jsonSchema }) => {
      const description = components.get(zodSchema)?.description;
      if (description !== undefined) jsonSchema.description = description;
    },
  });
  if ('__shared' in schemas) {
    throw new Error('A schema is shared without a component id (toJSONSchema emitted __shared); register it in src/contract.');
  }
  return schemas;
}

/** Enumerations that are components stay references; everything else is written out as the server reads it. */
export function queryParameterSchema(property: z.ZodType): JsonSchema {
  const inner = property instanceof z.ZodOptional ? (property.unwrap() as z.ZodType) : property;
  const id = components.get(inner)?.id;
  if (id !== undefined) return schemaRef(id);
  return withoutIdentity(z.toJSONSchema(property, { io: 'input', target: 'draft-2020-12' }));
}

/** `$schema` and `$id` belong to standalone schemas, not to components of one document. */
function withoutIdentity(schema: JsonSchema): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}
