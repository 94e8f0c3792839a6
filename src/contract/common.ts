import { z } from 'zod';
// A type only: naming it as a member of the zod namespace object would pull all of zod's core into the CLI bundle.
import type { $loose } from 'zod/v4/core';

/** Every shape that appears in the OpenAPI document is registered here under its component name. */
export const components = z.registry<{ id: string; description?: string }>();

export function component<T extends z.ZodType>(id: string, schema: T, description?: string): T {
  components.add(schema, description === undefined ? { id } : { id, description });
  return schema;
}

/**
 * A response record as a tolerant reader takes it: only the `guaranteed` fields (guaranteed.ts, from the document)
 * are required, every other field may be missing, and fields nobody knows pass through. Request bodies stay strict.
 */
export function tolerant<S extends z.ZodRawShape, K extends keyof S & string = never>(
  schema: z.ZodObject<S>,
  guaranteed: readonly K[] = [],
): z.ZodObject<TolerantShape<S, K>, $loose> {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(schema.shape) as [string, z.ZodType][]) {
    if ((guaranteed as readonly string[]).includes(key)) shape[key] = field;
    // Built on first use, as zod reads getters in a shape lazily: most runs (the sandbox, the CLI) never read an answer schema.
    else Object.defineProperty(shape, key, { enumerable: true, configurable: true, get: () => lazyOptional(shape, key, field) });
  }
  return z.looseObject(shape) as never;
}

function lazyOptional(shape: Record<string, z.ZodType>, key: string, field: z.ZodType): z.ZodType {
  const optional = field.optional();
  Object.defineProperty(shape, key, { enumerable: true, configurable: true, value: optional });
  return optional;
}

type TolerantShape<S extends z.ZodRawShape, K> = { [P in keyof S]: P extends K ? S[P] : z.ZodOptional<S[P]> };

/**
 * A value of a response enum: one of the known ones, or any other string a server may add (shown as it is).
 * Requests and query filters keep the closed enum.
 */
export function openEnum<T extends z.ZodEnum>(known: T) {
  return z.union([known, z.string().meta({ description: 'A value this contract does not know yet; clients show it as it is.' })]);
}

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

export const TokenMode = component('TokenMode', z.enum(['sandbox', 'production']));
export type TokenMode = z.infer<typeof TokenMode>;

export const PaginationQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  per_page: z.coerce.number().int().min(1).max(100).default(20),
});

export const Pagination = component(
  'Pagination',
  tolerant(
    z.object({
      page: z.int().min(1),
      per_page: z.int().min(1),
      total: z.int().min(0),
      total_pages: z.int().min(0),
      has_more: z.boolean(),
    }),
  ),
  'Position of this page in the whole list. Request the next page with `page` + 1 while `has_more` is true.',
);

export type Pagination = z.infer<typeof Pagination>;
