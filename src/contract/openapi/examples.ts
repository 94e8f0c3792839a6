import { exampleData } from './example-data.js';

/**
 * The examples of openapi.json: every path parameter, request body and answer has one, so tools that read a document
 * whole (Dredd's URI parameters, Prism's mock mode, documentation generators) have real values. They are answers of
 * the sandbox, from its seed at a fixed clock (scripts/openapi-examples.mjs writes example-data.ts), never made up
 * here and never read from the clock: the document is the same on every build.
 */
export interface ExampleData {
  /** By path parameter name (`invoice`, `slug`). */
  pathParameters: Record<string, string>;
  /** By operationId. */
  requestBodies: Record<string, unknown>;
  /** By operationId, then status: the whole success envelope. */
  responses: Record<string, Record<string, unknown>>;
  /** By status: the error envelope of the shared error answer. */
  errors: Record<string, unknown>;
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} has no example; run npm run openapi:examples (scripts/openapi-examples.mjs).`);
  return value;
}

export function pathParameterExample(name: string): string {
  return required(exampleData.pathParameters[name], `Path parameter {${name}}`);
}

export function requestBodyExample(operationId: string): unknown {
  return required(exampleData.requestBodies[operationId], `The request body of ${operationId}`);
}

export function successExample(operationId: string, status: number): unknown {
  return required(exampleData.responses[operationId]?.[String(status)], `The ${status} answer of ${operationId}`);
}

export function errorExample(status: number): unknown {
  return required(exampleData.errors[String(status)], `The shared ${status} answer`);
}
