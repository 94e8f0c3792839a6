/** One word of visible ASCII: no space, control or non-ASCII character. Dependency-free: the CLI checks flags with it eagerly. */
const VISIBLE_WORD = /^[\x21-\x7e]+$/;

/**
 * True when `text` is one visible-ASCII word of 1 to `maxLength` characters: the shape of a token, an
 * Idempotency-Key, a chat user id or a payment method code (whitespace or other characters mean a copy-paste accident).
 */
export function isVisibleWord(text: string, maxLength = Number.POSITIVE_INFINITY): boolean {
  return text.length <= maxLength && VISIBLE_WORD.test(text);
}

/** An Idempotency-Key is 1 to this many visible ASCII characters (INVALID_IDEMPOTENCY_KEY otherwise). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
