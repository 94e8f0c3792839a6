import { redactText, type KnownSecrets } from '../../contract/redact.js';
import type { OutputStream } from './streams.js';

/** `--option=value` as commander echoes an unknown option: the value may be a mistyped secret. Not `drop-after=20%`. */
const OPTION_VALUE = /(?<![\w-])(--?[A-Za-z][\w-]*)=[^'"\s]+/g;

/**
 * What the CLI says about words typed on its command line (commander's errors, error messages): the one redaction
 * (src/contract/redact.ts), and a value glued to an option cut whole, as it may be a secret typed in the wrong place.
 */
export function redactSecrets(text: string, known: KnownSecrets = []): string {
  return redactText(text, known).replace(OPTION_VALUE, '$1=…');
}

/**
 * The stream with every write redacted as `redact` says; everything else (isTTY, columns, events) is the stream's
 * own, so a prompt library can draw on it as on the real one.
 */
export function redactingStream<S extends OutputStream>(stream: S, redact: (text: string) => string): S {
  const write = (chunk: unknown, ...rest: unknown[]) =>
    (stream.write as (chunk: unknown, ...rest: unknown[]) => unknown)(typeof chunk === 'string' ? redact(chunk) : chunk, ...rest);
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write') return write;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
