import type { z } from 'zod';

/** Whether a value passes a schema; the same answer as `schema.safeParse(value).success`, without zod's cost. */
export type LeanCheck = (value: unknown) => boolean;

/**
 * A plain predicate built from a record's zod schema (mocks/store/records.ts), for checking a state of 100k orders
 * record by record: zod parses a record by building a copy of it, ten times the cost of reading it. The schema
 * stays the one source of the rules; this only reads them. A schema of a kind not understood here gets no lean
 * check (undefined), and its records are checked by zod itself.
 */
export function leanCheckOf(schema: z.ZodType): LeanCheck | undefined {
  return compile(schema);
}

interface Def {
  type: string;
  checks?: { _zod: { def: CheckDef } }[];
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  entries?: Record<string, unknown>;
  values?: unknown[];
  catchall?: unknown;
}

interface CheckDef {
  check: string;
  format?: string;
  value?: number;
  inclusive?: boolean;
  pattern?: RegExp;
}

function compile(schema: z.ZodType): LeanCheck | undefined {
  const def = (schema as unknown as { _zod: { def: Def } })._zod.def;
  switch (def.type) {
    case 'object':
      return compileObject(def);
    case 'number':
      return compileNumber(def);
    case 'string':
      return compileString(def);
    case 'boolean':
      return def.checks?.length ? undefined : (v) => typeof v === 'boolean';
    case 'enum': {
      const allowed = new Set(Object.values(def.entries ?? {}));
      return (v) => allowed.has(v);
    }
    case 'literal': {
      const allowed = new Set(def.values ?? []);
      return (v) => allowed.has(v);
    }
    case 'nullable': {
      const inner = compile(def.innerType!);
      return inner && ((v) => v === null || inner(v));
    }
    case 'optional': {
      const inner = compile(def.innerType!);
      return inner && ((v) => v === undefined || inner(v));
    }
    case 'array': {
      const element = def.checks?.length ? undefined : compile(def.element!);
      return element && ((v) => Array.isArray(v) && v.every(element));
    }
    default:
      return undefined;
  }
}

function compileObject(def: Def): LeanCheck | undefined {
  // A catchall or strict object says something about other keys: leave those to zod.
  if (def.checks?.length || def.catchall !== undefined) return undefined;
  const keys: string[] = [];
  const checks: LeanCheck[] = [];
  for (const [key, field] of Object.entries(def.shape ?? {})) {
    const check = compile(field);
    if (check === undefined) return undefined;
    keys.push(key);
    checks.push(check);
  }
  // An indexed loop over two lists: a state of 100k orders runs it 200k times.
  return (v) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
    const record = v as Record<string, unknown>;
    for (let i = 0; i < keys.length; i++) if (!checks[i]!(record[keys[i]!])) return false;
    return true;
  };
}

function compileNumber(def: Def): LeanCheck | undefined {
  let whole = false;
  let min = -Infinity;
  let max = Infinity;
  let minInclusive = true;
  let maxInclusive = true;
  for (const { _zod } of def.checks ?? []) {
    const check = _zod.def;
    if (check.check === 'number_format' && check.format === 'safeint') whole = true;
    else if (check.check === 'greater_than' && typeof check.value === 'number') {
      min = check.value;
      minInclusive = check.inclusive === true;
    } else if (check.check === 'less_than' && typeof check.value === 'number') {
      max = check.value;
      maxInclusive = check.inclusive === true;
    } else return undefined;
  }
  return (v) =>
    typeof v === 'number' &&
    Number.isFinite(v) &&
    (!whole || Number.isSafeInteger(v)) &&
    (minInclusive ? v >= min : v > min) &&
    (maxInclusive ? v <= max : v < max);
}

function compileString(def: Def): LeanCheck | undefined {
  const patterns: RegExp[] = [];
  for (const { _zod } of def.checks ?? []) {
    const check = _zod.def;
    if (check.check === 'string_format' && check.format === 'regex' && check.pattern instanceof RegExp)
      patterns.push(new RegExp(check.pattern.source, check.pattern.flags.replace(/[gy]/g, '')));
    else return undefined;
  }
  return (v) => {
    if (typeof v !== 'string') return false;
    for (const pattern of patterns) if (!pattern.test(v)) return false;
    return true;
  };
}
