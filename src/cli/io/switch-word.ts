/**
 * The words an on/off setting takes, as gh's `accessible_prompter enabled|disabled` and gcloud's
 * `accessibility/screen_reader true|false` do: one table for `topup config set accessible` and TOPUP_ACCESSIBLE, so
 * that a word means the same in the config file and in the environment.
 */
const SWITCH_WORDS: Readonly<Record<string, boolean>> = {
  true: true,
  false: false,
  on: true,
  off: false,
  '1': true,
  '0': false,
  yes: true,
  no: false,
  enabled: true,
  disabled: false,
};

/** true or false for a known word (any case, spaces around ignored); undefined for any other. */
export function switchWord(raw: string): boolean | undefined {
  const word = raw.trim().toLowerCase();
  return Object.hasOwn(SWITCH_WORDS, word) ? SWITCH_WORDS[word] : undefined;
}
