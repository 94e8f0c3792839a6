import { CliError } from '../errors.js';

/**
 * The record inside a detail answer (`{ order: … }`, `{ invoice: … }`), which the interface document does not show:
 * a server may leave it out, and then the command says so instead of printing a record of dashes as if it were one.
 */
export function recordIn<T extends object>(data: object, key: string): T {
  const record = (data as Record<string, unknown>)[key];
  if (record === null || typeof record !== 'object' || Array.isArray(record)) throw new CliError(`The server's answer has no ${key}.`);
  return record as T;
}
