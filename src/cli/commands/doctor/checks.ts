import type { z } from 'zod';
import { schemaDef, type SchemaDef } from '../../../contract/schema-def.js';

/** Something worth knowing that is no problem: `note` in words. */
export interface Note {
  where: string;
  note: string;
}

/** Something that is not as the interface document says, or that will make commands fail. */
export interface Finding {
  /** What was checked, e.g. `GET /api/v1/me/balance` or `token`. */
  where: string;
  /** One sentence. */
  problem: string;
}

/** How far the server's clock is from ours, in whole seconds (positive: the server is ahead); undefined without a Date header. */
export function clockSkewSeconds(dateHeader: string | null, localNowMs: number): number | undefined {
  if (dateHeader === null) return undefined;
  const serverMs = Date.parse(dateHeader);
  if (Number.isNaN(serverMs)) return undefined;
  // A Date header has whole seconds: under a second of difference is no skew.
  return Math.trunc((serverMs - localNowMs) / 1000) || 0;
}

/** A skew this large misreads X-RateLimit-Reset (a Unix time) and invoice expiry times. */
export const SKEW_LIMIT_SECONDS = 30;

export const RATE_LIMIT_HEADER_NAMES = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'] as const;

/** The rate-limit headers an answer carried, by lower-case name. */
export function rateLimitHeadersOf(headers: { get(name: string): string | null }): Record<string, string> {
  const seen: Record<string, string> = {};
  for (const name of RATE_LIMIT_HEADER_NAMES) {
    const value = headers.get(name);
    if (value !== null) seen[name] = value;
  }
  return seen;
}

function pathText(path: readonly PropertyKey[]): string {
  return path.length === 0
    ? '(the body)'
    : path
        .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
        .join('.')
        .replace(/\.\[/g, '[');
}

function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let current = body;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The most characters of a server's value that a finding or note quotes: each is one line, whatever was sent. */
const MAX_SHOWN_VALUE_CHARS = 100;

/** A server's value as JSON text, cut after MAX_SHOWN_VALUE_CHARS characters. */
export function shownValue(value: unknown): string {
  const chars = Array.from(JSON.stringify(value) ?? String(value));
  return chars.length > MAX_SHOWN_VALUE_CHARS ? `${chars.slice(0, MAX_SHOWN_VALUE_CHARS).join('')}…` : chars.join('');
}

/** `data.status: unknown value "up" (the contract knows "ok", "degraded").` */
function unknownValueText(at: string, value: unknown, known: readonly unknown[]): string {
  return `${at}: unknown value ${shownValue(value)} (the contract knows ${known.map((v) => JSON.stringify(v)).join(', ')}).`;
}

/** The known values of an open enum (the contract's `openEnum`: a union of an enum and any string), else undefined. */
function openEnumValues(def: SchemaDef): string[] | undefined {
  if (def.type !== 'union' || def.options?.length !== 2) return undefined;
  const [known, other] = def.options.map(schemaDef);
  return known!.type === 'enum' && other!.type === 'string' ? Object.values(known!.entries ?? {}) : undefined;
}

/**
 * Values of open enums (a status, a mode) that the contract does not know: a tolerant reader accepts and shows them,
 * so they are no problem; doctor still notes them, since a newer server's value may deserve handling of its own.
 */
export function unknownEnumNotes(where: string, schema: z.ZodType, value: unknown, path: PropertyKey[] = []): Note[] {
  const def = schemaDef(schema);
  const values = openEnumValues(def);
  if (values !== undefined) {
    return typeof value === 'string' && !values.includes(value)
      ? [
          {
            where,
            note: unknownValueText(pathText(path), value, values),
          },
        ]
      : [];
  }
  if ((def.type === 'optional' || def.type === 'nullable') && def.innerType) return unknownEnumNotes(where, def.innerType, value, path);
  if (def.type === 'array' && def.element && Array.isArray(value))
    return value.flatMap((item, i) => unknownEnumNotes(where, def.element!, item, [...path, i]));
  if (def.type === 'object' && def.shape && value !== null && typeof value === 'object') {
    return Object.entries(def.shape).flatMap(([key, field]) =>
      unknownEnumNotes(where, field, (value as Record<string, unknown>)[key], [...path, key]),
    );
  }
  return [];
}

/**
 * What the contract's reading of an answer cannot take, in words: a missing guaranteed field, a value of an
 * unexpected type. The schema is the contract's tolerant reader, so fields the document does not guarantee may be
 * absent, unknown fields are fine, and so are values of open enums it does not know (those are unknownEnumNotes).
 *
 * Only a difference in what the document shows is a finding. A field the document does not show (a profile's `id`, a
 * transaction's id, the health record) has the shape topup's own design gave it, which another server need not share:
 * a difference there, or anywhere inside such a field, is a note, and the commands show the value as it is.
 */
export function contractDifferences(where: string, schema: z.ZodType, body: unknown): { findings: Finding[]; notes: Note[] } {
  const parsed = schema.safeParse(body);
  const findings: Finding[] = [];
  const notes: Note[] = [];
  if (parsed.success) return { findings, notes };
  for (const issue of parsed.error.issues) {
    const value = valueAt(body, issue.path);
    if (throughUnshownField(schema, issue.path)) {
      const text = issue.code === 'invalid_type' && value === undefined ? `${pathText(issue.path)}: missing` : issueText(issue, value);
      notes.push({ where, note: `${text.replace(/\.$/, '')} (topup's own design; the document does not show this field).` });
    } else findings.push({ where, problem: issueText(issue, value) });
  }
  return { findings, notes };
}

function issueText(issue: z.core.$ZodIssue, value: unknown): string {
  const at = pathText(issue.path);
  if (issue.code === 'invalid_value' && 'values' in issue) return unknownValueText(at, value, issue.values);
  if (issue.code === 'invalid_type' && value === undefined) return `${at}: a guaranteed field is missing.`;
  if (issue.code === 'invalid_type') return `${at}: expected ${issue.expected}, got ${typeName(value)}.`;
  if (issue.code === 'invalid_format' && issue.format === 'regex' && 'pattern' in issue)
    return `${at}: ${shownValue(value)} does not match the pattern ${String(issue.pattern)}.`;
  if (issue.code === 'invalid_format') return `${at}: ${shownValue(value)} is not in the ${issue.format} format.`;
  return `${at}: ${issue.message.replace(/\.$/, '')}.`;
}

/**
 * Whether `path` goes through a field the contract reads as optional: one the document does not guarantee (a tolerant
 * record makes exactly those optional, see contract/common.ts). Wrappers (nullable, optional) are looked through.
 */
function throughUnshownField(schema: z.ZodType, path: readonly PropertyKey[]): boolean {
  let def = schemaDef(schema);
  for (const key of path) {
    def = unwrapped(def);
    let next: z.ZodType | undefined;
    if (def.type === 'array' && typeof key === 'number') next = def.element;
    else if (def.type === 'object' && typeof key === 'string') next = def.shape?.[key];
    else if (def.type === 'union') next = def.options?.map((o) => unwrapped(schemaDef(o)).shape?.[String(key)]).find(Boolean);
    // A key the schema does not name (a loose record's own extra) is no field the document shows.
    if (next === undefined) return true;
    if (schemaDef(next).type === 'optional') return true;
    def = schemaDef(next);
  }
  return false;
}

function unwrapped(def: SchemaDef): SchemaDef {
  while ((def.type === 'nullable' || def.type === 'optional') && def.innerType) def = schemaDef(def.innerType);
  return def;
}
