import { tokenShapePattern } from '../../contract/token-prefix.js';

/** Token-shaped text: the known prefixes, kept as a hint of the mode, with the secret part cut. */
const TOKEN_SHAPE = tokenShapePattern();
/** `--option=value` as commander echoes an unknown option: the value may be a mistyped secret. Not `drop-after=20%`. */
const OPTION_VALUE = /(?<![\w-])(--?[A-Za-z][\w-]*)=[^'"\s]+/g;

/**
 * Cuts secrets out of text bound for the terminal: token-shaped words, values glued to options,
 * and any known secret verbatim (a real server's tokens need not have our prefixes).
 */
export function redactSecrets(text: string, known: readonly (string | undefined)[] = []): string {
  let out = text.replace(TOKEN_SHAPE, '$1…').replace(OPTION_VALUE, '$1=…');
  for (const secret of known) if (secret !== undefined && secret.length >= 8) out = out.split(secret).join('[REDACTED]');
  return out;
}
