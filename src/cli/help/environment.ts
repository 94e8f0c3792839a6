/**
 * Every environment variable the CLI reads: the one table behind the root help's block and `topup help environment`.
 * test/cli/help.test.ts checks that each variable the code reads is in it.
 */
export const environmentVariables: readonly (readonly [name: string, meaning: string])[] = [
  ['TOPUP_TOKEN', "API token; wins over the profile's stored token (needs a server: a profile or TOPUP_BASE_URL)"],
  ['TOPUP_BASE_URL', "base URL of the server; wins over the profile's, not over --profile"],
  ['TOPUP_PROFILE', 'profile to use instead of the current one; an unknown name is an error'],
  [
    'TOPUP_SERVER_TIME_ZONE',
    "the zone of the server's times that name none (YYYY-MM-DD HH:MM:SS), e.g. Asia/Jakarta; wins over the profile's time_zone; unset, they are shown as sent (topup's sandbox: UTC)",
  ],
  ['TOPUP_CONFIG_DIR', "folder for config, credentials and the offline sandbox's state"],
  ['TOPUP_NO_PROMPT', 'never prompt, as --no-input: a missing value is a usage error'],
  ['NO_COLOR', 'turn colour off, prompts included (wins over the two below)'],
  ['FORCE_COLOR / CLICOLOR_FORCE', 'colour even when piped (FORCE_COLOR=0: none)'],
  ['CLICOLOR', '0: no colour on a terminal (the two above still force it)'],
  ['TOPUP_PAGER, then PAGER', 'pager for lists taller than the terminal (default less -FRX; cat or an empty value turns it off)'],
  ['LESS, LV', "the pager's own options; without them topup sets LESS=FRX and LV=-c, as git does"],
  ['TOPUP_JQ_TIMEOUT_MS', 'how long --jq may run on one value before it is stopped (default 10000)'],
  ['TOPUP_JQ_MEMORY_MB', 'how much memory --jq may use before it is stopped (default 256)'],
  ['TOPUP_TEST_NO_PACING', "for tests: 1 turns the client's pacing off toward a loopback server (a sandbox served with --no-rate-limit)"],
  [
    'TOPUP_ACCESSIBLE',
    '1: accessible mode (screen readers): no spinners or redraws (--watch, waits and progress print a line per update), tables as labelled lines, prompts as plain lines; 0: off. Wins over `topup config set accessible true`',
  ],
  [
    'TOPUP_DISABLE_CODE_CACHE',
    '1: compile the CLI from its source on each run, not with the V8 code cache it ships with (to rule the cache out)',
  ],
  ['TERM', '`dumb`: no colour unless forced, and `orders batch` shows its progress as one line per row instead of a bar'],
  ['LINES, COLUMNS', 'the terminal size when the terminal says none (0 by 0); a size the terminal says wins'],
  ['TZ', 'time zone of times shown on a terminal (piped, times are ISO 8601 in UTC)'],
  ['TOPUP_BROWSER, then BROWSER', 'the browser `mock open` and `mock serve --open` start (default xdg-open, open or start)'],
  ['XDG_CONFIG_HOME, HOME', 'the config folder without TOPUP_CONFIG_DIR: $XDG_CONFIG_HOME/topup, else ~/.config/topup'],
  ['APPDATA', 'on Windows, the config folder without TOPUP_CONFIG_DIR: %APPDATA%\\topup'],
];

/** The variables as aligned lines, indented by two spaces. */
export function environmentTable(): string {
  const width = Math.max(...environmentVariables.map(([name]) => name.length)) + 2;
  return environmentVariables.map(([name, meaning]) => `  ${name.padEnd(width)}${meaning}`).join('\n');
}
