import type { z } from 'zod';

/**
 * The parts of a zod 4 schema's `def` that code walking a schema beside a value looks into: the lean sandbox's
 * projection (mocks/routes/lean.ts) and `topup doctor`'s check for enum values the contract does not know.
 */
export interface SchemaDef {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  options?: z.ZodType[];
  entries?: Record<string, string>;
}

export function schemaDef(schema: z.ZodType): SchemaDef {
  return (schema as unknown as { def: SchemaDef }).def;
}
