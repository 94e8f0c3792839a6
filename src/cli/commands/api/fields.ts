import { UsageError } from '../../errors.js';

/** A field as given: `-f key=value` (a string) or `-F key=value` (typed). */
export interface FieldFlag {
  kind: 'raw' | 'typed';
  text: string;
}

/** A JSON value of a request field. */
export type FieldValue = string | number | boolean | null | FieldValue[] | { [key: string]: FieldValue };

/** Reads `@file` values of -F (and `@-`, stdin); injected so the parsing stays free of IO. */
export type ReadValueFile = (path: string) => Promise<string>;

/**
 * The value of a -F field, as gh types it: integers and decimals as numbers, true/false/null as themselves,
 * `@file` as the file's text (`@-` stdin), anything else as the string it is.
 */
export async function typedValue(text: string, readFile: ReadValueFile): Promise<FieldValue> {
  if (text === '@') throw new UsageError("-F NAME=@ names no file: give @FILE for a file's text, or @- for stdin.");
  if (text.startsWith('@')) return readFile(text.slice(1));
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  // Only numbers that read back as the same text: 007 or 9007199254740993 stay strings rather than change.
  if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(text) && String(Number(text)) === text) return Number(text);
  return text;
}

/**
 * Names that would walk into an object's prototype (`__proto__[x]` once turned off the plain-http guard of the whole
 * process). A request body never needs them; a field name is input from a stranger (a script, a pasted line).
 */
const PROTOTYPE_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** `a[b][]` → ['a', 'b', '']: the name, then each bracketed key; an empty key appends to an array. */
export function keyPath(key: string): string[] {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (match === null) throw new UsageError(`The field name '${key}' is not valid: use name, name[key] or name[].`);
  const keys = [...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((part) => part[1]!);
  if (keys.slice(0, -1).includes('')) throw new UsageError(`The field name '${key}' is not valid: [] can only come last.`);
  const path = [match[1]!, ...keys];
  if (path.some((name) => PROTOTYPE_NAMES.has(name)))
    throw new UsageError(`The field name '${key}' is not allowed: __proto__, constructor and prototype cannot be field names.`);
  return path;
}

/** The fields as one JSON object, nested by their `a[b]` names, in the order given. */
export async function fieldsObject(flags: readonly FieldFlag[], readFile: ReadValueFile): Promise<Record<string, FieldValue>> {
  // Null-prototype objects throughout: no name, whatever slips past keyPath, can reach Object.prototype.
  const root = emptyObject();
  for (const flag of flags) {
    const at = flag.text.indexOf('=');
    if (at <= 0) throw new UsageError(`A field is key=value; '${flag.text}' has no ${at === 0 ? 'key' : '= sign'}.`);
    const key = flag.text.slice(0, at);
    const text = flag.text.slice(at + 1);
    const value = flag.kind === 'raw' ? text : await typedValue(text, readFile);
    place(root, keyPath(key), value, key);
  }
  return root;
}

function place(root: Record<string, FieldValue>, path: readonly string[], value: FieldValue, key: string): void {
  let node: Record<string, FieldValue> | FieldValue[] = root;
  for (let i = 0; i < path.length; i++) {
    const name = path[i]!;
    const last = i === path.length - 1;
    const nextIsArray = path[i + 1] === '';
    if (Array.isArray(node)) {
      // Only `name[]` reaches here, as the last part: append.
      node.push(value);
      return;
    }
    if (last) {
      if (Object.hasOwn(node, name) && typeof node[name] === 'object' && node[name] !== null)
        throw new UsageError(`The field '${key}' conflicts with another field of the same name.`);
      node[name] = value;
      return;
    }
    const existing = Object.hasOwn(node, name) ? node[name] : undefined;
    if (existing === undefined) node[name] = nextIsArray ? [] : emptyObject();
    else if (typeof existing !== 'object' || existing === null || Array.isArray(existing) !== nextIsArray)
      throw new UsageError(`The field '${key}' conflicts with another field of the same name.`);
    node = node[name] as Record<string, FieldValue> | FieldValue[];
  }
}

function emptyObject(): Record<string, FieldValue> {
  return Object.create(null) as Record<string, FieldValue>;
}

/**
 * The fields as query parameters, as gh sends them on a GET: `a[b]=c`, `a[]=1&a[]=2`; numbers and booleans as text,
 * null as an empty value.
 */
export function fieldsQuery(fields: Record<string, FieldValue>): [string, string][] {
  const pairs: [string, string][] = [];
  const add = (name: string, value: FieldValue) => {
    if (Array.isArray(value)) for (const item of value) add(`${name}[]`, item);
    else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) add(`${name}[${key}]`, item);
    else pairs.push([name, value === null ? '' : String(value)]);
  };
  for (const [name, value] of Object.entries(fields)) add(name, value);
  return pairs;
}
