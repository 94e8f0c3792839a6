/**
 * The shapes of what the sandbox stores, as plain predicates: each record is checked on insert and update, and every
 * record of a state file when it is opened (mocks/state/state-schema.ts), 100k orders at a time. These are the
 * sandbox's own records, not the interface's answers (those are the zod contract in src/contract/): kept apart from
 * zod so that an offline CLI command, which opens a state file at every start, builds no zod schema at all.
 *
 * A rule answers two questions: whether a value keeps it (`check`, a loop without allocations), and if not, which
 * field is wrong and why (`problem`), in the words a refused state's error completes with the field's path.
 */

/** A field at fault: its path inside the value checked, and the phrase that follows the path ("must be …"). */
export interface Problem {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** What a stored field must be. `T` is what it reads as (types only). */
export interface FieldRule<T> {
  /** Whether a record may leave the field out. */
  readonly optional: boolean;
  readonly check: (value: unknown) => boolean;
  /** Why the value breaks the rule, or undefined when it keeps it. */
  problem(value: unknown): Problem | undefined;
  /** Types only: what a value that keeps the rule is. */
  readonly output?: T;
}

type Fields = Record<string, FieldRule<unknown>>;
type OutputOf<R> = R extends FieldRule<infer T> ? T : never;
type OptionalKeys<F extends Fields> = { [K in keyof F]: F[K] extends { readonly optional: true } ? K : never }[keyof F];
/** The record a RecordRule describes. */
export type RecordOf<R> =
  R extends RecordRule<infer F>
    ? { [K in Exclude<keyof F, OptionalKeys<F>>]: OutputOf<F[K]> } & { [K in OptionalKeys<F>]?: OutputOf<F[K]> }
    : never;

/** A record's rule: also a Standard Schema, the kind of schema an @msw/data collection takes. */
export interface RecordRule<F extends Fields = Fields> extends FieldRule<RecordOf<RecordRule<F>>> {
  /** The fields, in their order. */
  readonly fields: readonly (keyof F & string)[];
  /** The fields a record may leave out. */
  readonly optionalFields: readonly (keyof F & string)[];
  readonly shape: F;
  /** The value, when it keeps the rule; else a RecordRefusal naming the first field at fault. */
  parse(value: unknown): RecordOf<RecordRule<F>>;
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    validate(value: unknown): { value: RecordOf<RecordRule<F>> } | { issues: { message: string; path: (string | number)[] }[] };
    readonly types?: { readonly input: RecordOf<RecordRule<F>>; readonly output: RecordOf<RecordRule<F>> };
  };
}

/** A record that breaks its rule, with the field at fault. */
export class RecordRefusal extends Error {
  override name = 'RecordRefusal';
  constructor(readonly problem: Problem) {
    super(`${pathText(problem.path)} ${problem.message}.`);
  }
}

/** `a.b[3].c`, or `whole` (the record, the state) for the whole of it. */
export function pathText(path: readonly (string | number)[], whole = 'the record'): string {
  let text = '';
  for (const part of path) text += typeof part === 'number' ? `[${part}]` : `${text === '' ? '' : '.'}${part}`;
  return text === '' ? whole : text;
}

/** A JSON object: not null, not a list. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const here = (message: string): Problem => ({ path: [], message });
const MISSING = here('is missing');

function rule<T>(check: (value: unknown) => boolean, explain: (value: unknown) => string): FieldRule<T> {
  return {
    optional: false,
    check,
    problem: (value) => (check(value) ? undefined : value === undefined ? MISSING : here(explain(value))),
  };
}

/**
 * A whole number within `min` and `max` (safe integers when not given). `message`, when given, is the phrase for
 * every way of breaking it, a missing value too.
 */
export function whole(options: { min?: number; max?: number; message?: string } = {}): FieldRule<number> {
  const min = options.min ?? Number.MIN_SAFE_INTEGER;
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  const check = (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
  const { message } = options;
  if (message !== undefined) return { optional: false, check, problem: (value) => (check(value) ? undefined : here(message)) };
  return rule(check, (value) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
    if (value < min) return `must be at least ${min}`;
    if (value > max) return `must be at most ${max}`;
    return 'must be a whole number';
  });
}

/** Text, matching `pattern` when one is given. */
export function text(pattern?: RegExp): FieldRule<string> {
  const matcher = pattern && new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
  return rule(
    (value) => typeof value === 'string' && (matcher === undefined || matcher.test(value)),
    (value) => (typeof value === 'string' ? 'is not in the expected format' : 'must be a string'),
  );
}

export function bool(): FieldRule<boolean> {
  return rule(
    (value) => typeof value === 'boolean',
    () => 'must be a boolean',
  );
}

/** One of a closed list of values. */
export function oneOf<const V extends readonly (string | number)[]>(values: V): FieldRule<V[number]> {
  const allowed = new Set<unknown>(values);
  const phrase = `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`;
  return rule(
    (value) => allowed.has(value),
    () => phrase,
  );
}

/** Exactly `expected`; `message` is the phrase for anything else. */
export function literal<const V extends string | number>(expected: V, message: string): FieldRule<V> {
  const check = (value: unknown) => value === expected;
  return { optional: false, check, problem: (value) => (check(value) ? undefined : here(message)) };
}

export function nullable<T>(inner: FieldRule<T>): FieldRule<T | null> {
  const check = inner.check;
  return {
    optional: false,
    check: (value) => value === null || check(value),
    problem: (value) => (value === null ? undefined : inner.problem(value)),
  };
}

export function optional<T>(inner: FieldRule<T>): FieldRule<T> & { readonly optional: true } {
  const check = inner.check;
  return {
    optional: true,
    check: (value) => value === undefined || check(value),
    problem: (value) => (value === undefined ? undefined : inner.problem(value)),
  };
}

/** A list whose every item keeps `item`. */
export function list<T>(item: FieldRule<T>, message = 'must be a list'): FieldRule<T[]> {
  const check = item.check;
  return {
    optional: false,
    check: (value) => {
      if (!Array.isArray(value)) return false;
      for (let i = 0; i < value.length; i++) if (!check(value[i])) return false;
      return true;
    },
    problem(value) {
      if (!Array.isArray(value)) return value === undefined && message === 'must be a list' ? MISSING : here(message);
      for (let i = 0; i < value.length; i++) {
        const found = item.problem(value[i]);
        if (found !== undefined) return { path: [i, ...found.path], message: found.message };
      }
      return undefined;
    },
  };
}

/**
 * A record of `fields`, in their order. Fields it does not name are let through by the check (a copy keeps the
 * named ones only: mocks/store/table.ts). `message` is the phrase for a value that is not an object at all.
 */
export function record<F extends Fields>(fields: F, message = 'must be an object'): RecordRule<F> {
  const names = Object.keys(fields) as (keyof F & string)[];
  const checks = names.map((name) => fields[name]!.check);
  // An indexed loop over two lists: a state of 100k orders runs it 200k times.
  const check = (value: unknown): boolean => {
    if (!isObject(value)) return false;
    for (let i = 0; i < names.length; i++) if (!checks[i]!(value[names[i]!])) return false;
    return true;
  };
  const problem = (value: unknown): Problem | undefined => {
    if (!isObject(value)) return value === undefined && message === 'must be an object' ? MISSING : here(message);
    for (const name of names) {
      const found = fields[name]!.problem(value[name]);
      if (found !== undefined) return { path: [name, ...found.path], message: found.message };
    }
    return undefined;
  };
  type Out = RecordOf<RecordRule<F>>;
  const parse = (value: unknown): Out => {
    if (check(value)) return value as Out;
    throw new RecordRefusal(problem(value) ?? here('is not a record'));
  };
  return {
    optional: false,
    check,
    problem,
    fields: names,
    optionalFields: names.filter((name) => fields[name]!.optional),
    shape: fields,
    parse,
    '~standard': {
      version: 1,
      vendor: 'topup',
      validate(value) {
        if (check(value)) return { value: value as Out };
        const found = problem(value) ?? here('is not a record');
        return { issues: [{ message: found.message, path: [...found.path] }] };
      },
    },
  };
}

/** The rule of any record, whatever its fields (a table's type parameter). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- fields vary by table; RecordOf reads them back
export type AnyRecordRule = RecordRule<any>;
