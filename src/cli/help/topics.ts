import { exitCodeTable } from '../exit-codes.js';
import { environmentTable } from './environment.js';
import type { HelpTopic } from './topic-names.js';

const exitCodes = () => exitCodeTable.map(([code, meaning]) => `  ${String(code).padStart(3)}  ${meaning}`).join('\n');

const texts: Record<HelpTopic, () => string> = {
  environment: () => `Environment variables that topup reads. Flags win over variables, and variables over the stored configuration
(except that --profile wins over TOPUP_BASE_URL); see \`topup help sandbox\` for where requests go.

${environmentTable()}

A token comes from TOPUP_TOKEN or from the 0600 file that \`topup auth login\` writes (from a hidden prompt or
a pipe), never from an argument, so that it stays out of the shell history.

Examples:
  $ NO_COLOR=1 topup packages
  $ TOPUP_NO_PROMPT=1 topup orders create --username BuilderBob --place 5001 --pass 9001
  $ TOPUP_CONFIG_DIR="$PWD/.topup" topup config path
`,

  'exit-codes': () => `Every command ends with one of these exit codes, so that a script can tell what happened:

${exitCodes()}

  0    also \`topup mock serve\` stopped by Ctrl-C or SIGTERM, once it has closed and saved its state: that is how a
       server ends.
  2    is also commander's: an unknown command or option, a missing argument. Nothing was sent.
  4    \`auth status\` and \`auth token\` exit 4 when there is no token, or the server refuses it.
  5    e.g. 422 PLATFORM_VALIDATION_FAILED, or an invoice that expired or failed during \`invoices status --wait\`.
  8    \`invoices status --wait\` when --timeout passed first: the invoice may still be paid later.
  130  Ctrl-C. With an order in flight, run the command again with the --idempotency-key it printed.

With --json every error is one JSON error envelope on stderr: {"success": false, "message": ..., "error": {...}};
"error" holds "kind", and the server's "code", "fields" and "retry_after" (seconds) when it sent them. Without
--json, the fields at fault that the message does not name, and a Retry-After the retries gave up on, follow it.
An \`orders batch\` that stopped part way (Ctrl-C included, under --json) adds "resume_command" and "rows_not_sent".

Examples:
  $ topup health; echo "exit $?"
  $ topup orders show INV1 || echo "exit $?"
`,

  formatting: () => `Output depends on where it goes. stdout holds only data; everything else (notices, hints, progress, warnings)
goes to stderr, so a pipe sees only the data.

On a terminal    a title, aligned columns, colour, formatted amounts (Rp 12.000; credits grouped the same way,
                 1.700) and a spinner during waits; success messages ("✓ Paid INV…") on stderr.
Piped            stable plain text without colour, for scripts: a list is tab-separated rows without a header,
                 a record is \`key: value\` lines, amounts are raw integers, \`orders create\` prints only the
                 invoice code. Success messages are left out: a script learns the outcome from the exit code.
--json           exactly the response's data as JSON on stdout, and nothing else; an error is the JSON error
                 envelope on stderr. A server's strings are kept exactly (control characters as \\u escapes).
--jq EXPR        filters the --json output through jq (built in) and implies --json: one result a line, a
                 string as its text (control characters escaped), anything else as compact JSON. An expression
                 jq cannot compile is a usage error (exit 2), checked before anything is sent.
                 A filter that runs over 10 s on one value or needs over 256 MB is stopped (exit 1;
                 TOPUP_JQ_TIMEOUT_MS and TOPUP_JQ_MEMORY_MB change the limits); Ctrl-C stops it at once.

A table takes the terminal's width. When it is too narrow, long text (names, titles, descriptions) ends in …,
then whole columns are left out, the least important first; what names a row (invoice, code, slug, id) always stays:
  articles list     published, category, title
  orders list       created, type, credits, payment, username, total, status   (also the dashboard's recent orders)
  deposits list     created, method, paid, amount, status
  transactions      type, reference, created, description, balance after, amount
  packages          name, credits, price
  payment-methods   sandbox, type, name
  mock fixtures     mode, chat user, balance; a case's body; a magic order's ends, pass
  mock faults       matched, fired
  mock serve        the token table's mode (a token's prefix says it)
\`mock logs\`, \`mock requests list\` and \`mock serve --log\` fit each line: the path's column narrows from 40 cells to
28, then the duration and the time are left out; then a line's route, key, account, replay, rate limited, fault and
near miss, in that order; at last the path loses its middle (/api/v1/me/or…0302000003). Key/value lines (records,
doctor) wrap at spaces; a URL or token is never cut, and a command to paste continues its lines with \\.
Piped, every column is there in full, whatever the width. --json has every field.

Colour is on only on a terminal (not TERM=dumb, not CLICOLOR=0), for stdout and stderr each by itself: 2>log keeps
colour codes out of the log; --no-color or NO_COLOR turn it off, FORCE_COLOR / CLICOLOR_FORCE turn it on even when piped. Text from a server never reaches a terminal raw: in human output, control characters and BiDi
overrides are shown as escapes (\\x1b, \\u202e), so a server cannot retitle, clear or link your terminal; a tab or line
break inside a table cell or a key/value line too (\\x09, \\x0a), so a server cannot add a row.

Examples:
  $ topup orders list | cut -f1
  $ topup --json packages | jq '.packages[0]'
  $ topup balance --json
  $ topup packages --jq '.packages[0].code'
`,

  sandbox: () => `Until you log in to a server, every command talks to the embedded offline sandbox: an in-process copy of the
shop, with the demo account's sandbox token. Every run on it says so on stderr, --json included, so its data never
passes for real. Its state lives in the config folder (sandbox-state.json): an order created by one run is there for
the next, and \`topup mock reset\` starts it over.

Where requests go: one rule for every command (src/cli/target.ts).
  1. --mock: the embedded sandbox, whatever else is set (TOPUP_TOKEN is then ignored, and the notice says so).
  2. A profile named by --profile, TOPUP_PROFILE or as the current one must exist; an unknown name is exit 2.
  3. The server: --base-url, then --profile's, then TOPUP_BASE_URL, then the profile of TOPUP_PROFILE or the
     current one.
  4. No server: the embedded sandbox only when nothing at all is configured. TOPUP_TOKEN without a server, or
     profiles of which none is current, are a usage error (exit 2), never fake data.
  5. While \`topup mock serve\` serves the config folder's sandbox, the embedded sandbox of 1 and 4 answers from it,
     over HTTP (the notice names its URL); when it stops, in-process again, with the same state.
  The token: TOPUP_TOKEN, else the profile's stored one, which is sent only to that profile's own server.

Test values, the same on every start (\`topup mock fixtures\` lists them all):
  accounts     demo (sandbox token, balance 0), rich (production, linked to chat user 700000001), broke, unlinked
  platform     BuilderBob owns place 5001 with passes 9001 (100 credits), 9002, 9004 and VIP server 7001
  magic        TestOutcomes, place 5900, passes 9901 to 9905: the order fails, expires, is refunded, is slow,
               or is rejected, by itself

A sandbox over HTTP for your own bot: \`topup mock serve\` (http://127.0.0.1:4010): the config folder's, which every
command here then uses with no flags (pay, expire, deposit, reset, logs… steer it); --fresh or --state FILE serve
one of their own, reached with --base-url. Rate limits: a served sandbox enforces them; the embedded one starts
them over with every request, so it never answers 429 for them.

Examples:
  $ topup mock fixtures
  $ topup --mock packages
  $ inv=$(topup orders create --username BuilderBob --place 5001 --pass 9001)
  $ topup mock pay "$inv"
  $ topup mock reset
`,
};

/** The text of a help topic, ending in a newline. */
export function helpTopicText(topic: HelpTopic): string {
  return texts[topic]();
}
