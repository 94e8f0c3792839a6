import { CliError } from '../../errors.js';

/**
 * The record inside a detail answer (`{ order: … }`, `{ invoice: … }`), which the interface document does not show:
 * a server may leave it out, and then the command says so instead of printing a record of dashes as if it were one.
 */
export function recordIn<T extends object>(data: object, key: string): T {
  const record = (data as Record<string, unknown>)[key];
  if (record === null || typeof record !== 'object' || Array.isArray(record)) throw new CliError(`The server's answer has no ${key}.`);
  return record as T;
}

/** The items of a list answer; a list the server left out is an error that says so, never "no items". */
export function listIn<T>(data: object, key: string): readonly T[] {
  const items = (data as Record<string, unknown>)[key];
  if (!Array.isArray(items)) throw new CliError(`The server's answer has no ${key} list.`);
  return items as T[];
}
