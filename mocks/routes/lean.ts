import type { z } from 'zod';
import { components } from '../../src/contract/common.js';
import { GUARANTEED, LEAN_KEPT } from '../../src/contract/guaranteed.js';
import { schemaDef } from '../../src/contract/schema-def.js';

const keptFields = new Map<string, ReadonlySet<string>>();
for (const table of [GUARANTEED, LEAN_KEPT]) {
  for (const [id, fields] of Object.entries(table) as [string, readonly string[]][])
    keptFields.set(id, new Set([...(keptFields.get(id) ?? []), ...fields]));
}

/**
 * An answer's `data` as a minimal server that honours the interface document would send it (`createSandbox({ lean:
 * true })`): on each record only the fields src/contract/guaranteed.ts keeps, found by walking the endpoint's schema
 * beside the value. A record of a kind that keeps nothing (a balance, a profile) comes back empty.
 */
export function leanData(schema: z.ZodType, value: unknown): unknown {
  const def = schemaDef(schema);
  if ((def.type === 'optional' || def.type === 'nullable') && def.innerType) return leanData(def.innerType, value);
  if (def.type === 'array' && def.element && Array.isArray(value)) return value.map((item) => leanData(def.element!, item));
  if (def.type !== 'object' || def.shape === undefined || value === null || typeof value !== 'object') return value;
  const id = components.get(schema)?.id;
  const kept = id === undefined ? undefined : keptFields.get(id);
  const lean: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(def.shape)) {
    if (kept?.has(key) !== true || !(key in value)) continue;
    lean[key] = leanData(field, (value as Record<string, unknown>)[key]);
  }
  return lean;
}
