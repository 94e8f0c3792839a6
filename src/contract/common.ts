import { z } from 'zod';
// A type only: naming it as a member of the zod namespace object would pull all of zod's core into the CLI bundle.
import type { $loose } from 'zod/v4/core';
import { TOKEN_MODES } from './values.js';

/** Every shape that appears in the OpenAPI document is registered here under its component name. */
export const components = z.registry<{ id: string; description?: string }>();

export function component<T extends z.ZodType>(id: string, schema: T, description?: string): T {
  components.add(schema, description === undefined ? { id } : { id, description });
  return schema;
}

/**
 * A response record as a tolerant reader takes it: only the `guaranteed` fields (guaranteed.ts, from the document)
 * are required, every other field may be missing, and fields nobody knows pass through. Request bodies stay strict.
 *
 * The fields come as a function, called the first time zod reads the shape (to parse, to convert to JSON Schema, or
 * `.shape`): building every field's schema at load was most of the contract's start-up cost, and most runs (an
 * offline command, the sandbox's start) never read an answer schema. The schema is the same object either way.
 */
export function tolerant<S extends z.ZodRawShape, K extends keyof S & string = never>(
  fields: () => S,
  guaranteed: readonly K[] = [],
): z.ZodObject<TolerantShape<S, K>, $loose> {
  return z.looseObject(lazyShape(() => tolerantShape(fields(), guaranteed))) as never;
}

function tolerantShape(fields: z.ZodRawShape, guaranteed: readonly string[]): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(fields) as [string, z.ZodType][]) {
    shape[key] = guaranteed.includes(key) ? field : field.optional();
  }
  return shape;
}

/**
 * A shape whose fields are built when it is first looked into. zod reads a shape only through its keys and values
 * (it copies it on first use), so the first of those fills this object with the built fields and answers from them.
 */
function lazyShape(build: () => Record<string, z.ZodType>): Record<string, z.ZodType> {
  const target: Record<string, z.ZodType> = {};
  let built = false;
  const filled = (): Record<string, z.ZodType> => {
    if (!built) {
      built = true;
      Object.assign(target, build());
    }
    return target;
  };
  return new Proxy(target, {
    get: (_target, key, receiver): unknown => Reflect.get(filled(), key, receiver),
    has: (_target, key) => Reflect.has(filled(), key),
    ownKeys: () => Reflect.ownKeys(filled()),
    getOwnPropertyDescriptor: (_target, key) => Reflect.getOwnPropertyDescriptor(filled(), key),
  });
}

/** Fields that two records share (a summary and its detail), built once when the first of them is read. */
export function sharedFields<S extends z.ZodRawShape>(build: () => S): () => S {
  let fields: S | undefined;
  return () => (fields ??= build());
}

type TolerantShape<S extends z.ZodRawShape, K> = { [P in keyof S]: P extends K ? S[P] : z.ZodOptional<S[P]> };

/**
 * A value of a response enum: one of the known ones, or any other string a server may add (shown as it is).
 * Requests and query filters keep the closed enum. Its type keeps the known values (`'paid' | (string & {})`), so an
 * editor offers them and a comparison with a misspelt one (`=== 'piad'`) is still a string comparison, but shown as
 * an unknown value; at run time it is the union below.
 */
export function openEnum<T extends z.ZodEnum>(known: T): OpenEnum<T> {
  return z.union([known, z.string().meta({ description: 'A value this contract does not know yet; clients show it as it is.' })]);
}

/** The zod type of openEnum: a string schema whose type names the known values. */
export type OpenEnum<T extends z.ZodEnum> = z.ZodType<z.output<T> | (string & {}), z.input<T> | (string & {})>;

/** `YYYY-MM-DD HH:MM:SS`, always UTC. */
export const Timestamp = component(
  'Timestamp',
  z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
  'A UTC time written `YYYY-MM-DD HH:MM:SS`.',
);

/** Invoice codes are the letters INV followed by digits. */
export const InvoiceCode = component('InvoiceCode', z.string().regex(/^INV\d+$/), 'The letters `INV` followed by digits.');

export const Currency = z
  .string()
  .regex(/^[A-Z]{3}$/)
  .meta({ description: 'ISO 4217 currency code.' });

/** Money is an integer in the smallest shown unit; every amount has a `formatted_*` companion. */
export const Money = z.int().min(0);

export const TokenMode = component('TokenMode', z.enum(TOKEN_MODES));
export type TokenMode = z.infer<typeof TokenMode>;

export const PaginationQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  per_page: z.coerce.number().int().min(1).max(100).default(20),
});

export const Pagination = component(
  'Pagination',
  tolerant(() => ({
    page: z.int().min(1),
    per_page: z.int().min(1),
    total: z.int().min(0),
    total_pages: z.int().min(0),
    has_more: z.boolean(),
  })),
  'Position of this page in the whole list. Request the next page with `page` + 1 while `has_more` is true.',
);

export type Pagination = z.infer<typeof Pagination>;
