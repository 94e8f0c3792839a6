/**
 * What a user can do about an error a server reported by its code, in the CLI's own words: the server's message speaks
 * of headers (X-Chat-User-ID), the user needs the flag or the config key that sends it. Printed after the error line;
 * the server's message itself is never rewritten.
 */
const hintsByCode: Readonly<Record<string, string>> = {
  CHAT_LINK_REQUIRED:
    'Give the chat user id linked to this account with --chat-user-id ID, or store it for the profile: topup config set chat_user_id ID',
};

export function errorHint(code: unknown): string | undefined {
  return typeof code === 'string' && Object.hasOwn(hintsByCode, code) ? hintsByCode[code] : undefined;
}
