import { CliError } from '../../errors.js';

/**
 * The record inside a detail answer (`{ order: … }`, `{ invoice: … }`), which the interface document does not show.
 * A server that sends the record's fields in `data` itself, without the wrapper, is read as it sent them (`notice`
 * says so); one that sends nothing of it (an empty `data`, or the key holding something else) is an error that says so,
 * instead of a record of dashes printed as if it were one.
 */
export function recordIn<T extends object>(data: object, key: string, notice?: (text: string) => void): T {
  const record = (data as Record<string, unknown>)[key];
  if (record !== null && typeof record === 'object' && !Array.isArray(record)) return record as T;
  if (record === undefined && Object.keys(data).length > 0) {
    notice?.(`The server's answer has no ${key} object; its fields are read from the answer's data itself.`);
    return data as T;
  }
  throw new CliError(`The server's answer has no ${key}.`);
}

/** The items of a list answer; a list the server left out is an error that says so, never "no items". */
export function listIn<T>(data: object, key: string): readonly T[] {
  const items = (data as Record<string, unknown>)[key];
  if (!Array.isArray(items)) throw new CliError(`The server's answer has no ${key} list.`);
  return items as T[];
}
