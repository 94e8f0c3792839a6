import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../mocks/assembly/sandbox.js';
import { collectExamples, exampleDataText } from '../../scripts/openapi-examples.mjs';
import { CreateOrderRequest, endpoints, ErrorEnvelope, successEnvelope } from '../../src/contract/index.js';
import { buildOpenApiDocument, type JsonSchema, type OpenApiDocument } from '../../src/contract/openapi.js';
import { schemaCompiler } from '../support/openapi-validator.js';

/**
 * openapi.json is usable whole by tools that read examples (Dredd, Prism's mock mode, documentation generators): every
 * path parameter, request body and answer has an example, each valid against its own schema, each an answer of the
 * sandbox from its seed at a fixed clock.
 */
const onDisk = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as OpenApiDocument;

interface ExamplePlace {
  where: string;
  schema: JsonSchema;
  example: unknown;
}

type Node = Record<string, any>;

/** Every place the document must give an example, with its schema and the example (undefined when missing). */
function examplePlaces(doc: OpenApiDocument): ExamplePlace[] {
  const places: ExamplePlace[] = [];
  const resolve = (node: Node): Node => {
    if (typeof node.$ref !== 'string') return node;
    const found = node.$ref
      .slice(2)
      .split('/')
      .reduce<Node | undefined>((at, key) => at?.[key], doc as unknown as Node);
    if (found === undefined) throw new Error(`${node.$ref} does not resolve`);
    return resolve(found);
  };
  const media = (where: string, content: Node | undefined) => {
    if (content === undefined || Object.keys(content).length === 0)
      places.push({ where: `${where} (no content)`, schema: {}, example: undefined });
    for (const [type, value] of Object.entries(content ?? {}))
      places.push({ where: `${where} ${type}`, schema: value.schema, example: value.example });
  };
  for (const [path, item] of Object.entries(doc.paths as Record<string, Node>)) {
    for (const parameter of (item.parameters ?? []) as Node[]) {
      const p = resolve(parameter);
      if (p.in === 'path') places.push({ where: `${path} parameter {${p.name}}`, schema: p.schema, example: p.example });
    }
    for (const [method, operation] of Object.entries(item).filter(([key]) => key !== 'parameters') as [string, Node][]) {
      const at = `${method.toUpperCase()} ${path}`;
      for (const parameter of (operation.parameters ?? []) as Node[]) {
        const p = resolve(parameter);
        if (p.in === 'path') places.push({ where: `${at} parameter {${p.name}}`, schema: p.schema, example: p.example });
      }
      if (operation.requestBody !== undefined) media(`${at} request body`, resolve(operation.requestBody).content);
      for (const [status, response] of Object.entries(operation.responses as Node)) media(`${at} → ${status}`, resolve(response).content);
    }
  }
  return places;
}

describe('the examples of openapi.json', () => {
  it('are given for every path parameter, request body and answer', () => {
    const places = examplePlaces(onDisk);
    // 17 operations: 6 path parameters, 1 body, 18 success answers and their shared error answers.
    expect(places.length).toBeGreaterThan(150);
    expect(places.filter((p) => p.example === undefined).map((p) => p.where)).toEqual([]);
  });

  it('the walk finds a missing one (it can fail)', () => {
    const copy = JSON.parse(JSON.stringify(onDisk)) as Node;
    delete copy.paths['/api/v1/me/invoices/{invoice}'].get.parameters[0].example;
    delete copy.components.responses.NotFound.content['application/json'].example;
    delete copy.paths['/api/v1/me/orders'].post.requestBody.content['application/json'].example;
    const missing = examplePlaces(copy as OpenApiDocument)
      .filter((p) => p.example === undefined)
      .map((p) => p.where);
    expect(missing).toEqual(
      expect.arrayContaining([
        'GET /api/v1/me/invoices/{invoice} parameter {invoice}',
        'GET /api/v1/me/invoices/{invoice} → 404 application/json',
        'POST /api/v1/me/orders request body application/json',
      ]),
    );
  });

  it('each validates against its own schema (Ajv, strict, on the document as written)', () => {
    const compile = schemaCompiler(onDisk);
    // The check can fail: an example that breaks its schema is refused.
    const status = examplePlaces(onDisk).find((p) => p.where === 'GET /api/v1/me/invoices/{invoice}/status → 200 application/json')!;
    expect(compile(status.schema)({ success: true, message: 'OK', data: { invoice_code: 'nope' } })).toBe(false);
    const invoice = examplePlaces(onDisk).find((p) => p.where === 'GET /api/v1/me/invoices/{invoice} parameter {invoice}')!;
    expect(compile(invoice.schema)('12')).toBe(false);
    const invalid = examplePlaces(onDisk).flatMap(({ where, schema, example }) => {
      const validate = compile(schema);
      return validate(example) ? [] : [`${where}: ${JSON.stringify(validate.errors)}`];
    });
    expect(invalid).toEqual([]);
  });

  it('each is what the zod contract reads: success envelopes, error envelopes and the order body', () => {
    const doc = buildOpenApiDocument();
    for (const endpoint of endpoints) {
      const operation = doc.paths[endpoint.path]![endpoint.method === 'GET' ? 'get' : 'post']!;
      for (const status of endpoint.success) {
        const response = operation.responses[String(status)] as { content: Record<string, { example: unknown }> };
        const parsed = successEnvelope(endpoint.data).safeParse(response.content['application/json']!.example);
        expect(parsed.error, `${endpoint.id} ${status}`).toBeUndefined();
      }
    }
    for (const [name, response] of Object.entries(doc.components.responses))
      expect(ErrorEnvelope.safeParse(response.content['application/json']!.example).error, name).toBeUndefined();
    const body = doc.paths['/api/v1/me/orders']!.post!.requestBody!.content['application/json']!.example;
    expect(CreateOrderRequest.safeParse(body).success).toBe(true);
  });

  it('are answers of the sandbox from its seed at a fixed clock: example-data.ts is current', async () => {
    const file = readFileSync(new URL('../../src/contract/openapi/example-data.ts', import.meta.url), 'utf8');
    expect(await exampleDataText(await collectExamples(createSandbox)), 'run npm run openapi:examples, then npm run build').toBe(file);
  });

  it('name the same invoice everywhere: the path parameter is the example order, which the answers show', () => {
    const invoice = onDisk.paths['/api/v1/me/orders/{invoice}']!.get!.parameters!.find((p) => p.name === 'invoice')!.example;
    const answer = (onDisk.paths['/api/v1/me/orders/{invoice}']!.get!.responses['200'] as { content: Record<string, { example: any }> })
      .content['application/json']!.example;
    expect(answer.data.order.invoice_code).toBe(invoice);
  });
});
