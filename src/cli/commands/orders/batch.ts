import { Option, type Command } from 'commander';
import type { CliContext } from '../../context.js';
import { parseWholeNumber } from '../shared/choices.js';
import type { BatchFlags } from './batch-run.js';

/** Amounts are whole numbers (the document's integers): a cap of 1.5 or past 2^53 could never be what is added up. */
const parseAmount = parseWholeNumber('--max-total', 1);

export function registerOrderBatchCommand(orders: Command, ctx: CliContext): Command {
  return orders
    .command('batch')
    .description('Create many orders from a JSON Lines or CSV file, exactly once, paced, resumable')
    .argument('<file>', 'the rows: a .jsonl or .csv file, or - for stdin; stdin or a pipe (<(make-rows)) needs --format and --batch')
    .addOption(new Option('--format <format>', 'jsonl or csv (default: by the file name)').choices(['jsonl', 'csv']))
    .option('--batch <name>', "names the batch; part of every row's idempotency key (default: the file's name)")
    .option('--results <path>', 'the results ledger (default: FILE.results.jsonl beside the file)')
    .option('--dry-run', 'check every row and print what would be sent; send nothing')
    .option('--retry-rejected', 'send again the rows the ledger has as rejected (after a top-up, say)')
    .option('--chat-user-id <id>', "linked chat user id, for rows that pay by balance (default: the profile's)")
    .option(
      '--max-total <amount>',
      "stop sending once the batch's created orders add up to this amount (the server prices each order, so the one that crosses it is made)",
      parseAmount,
    )
    .option('-y, --yes', 'send without the question (needed for rows paying by balance with a production token and no terminal)')
    .option('--wait', 'then wait for every created invoice to become final, and record it in the ledger')
    .option(
      '--timeout <seconds>',
      'how long --wait may take, in seconds (default: the invoice lifetime plus 5 minutes)',
      parseWholeNumber('--timeout', 1),
    )
    .addOption(
      new Option('--progress <mode>', 'on a terminal: a bar redrawn in place, or one line per row (screen readers, logs)').choices([
        'bar',
        'lines',
      ]),
    )
    .addHelpText(
      'after',
      `
Each row is an order body: order_type (or type), platform_username (username), place_id (place),
platform_pass_id (gamepass_id, pass), payment_method, client_reference (reference). Every row is checked first;
any fault is listed with its line and nothing is sent (exit 2). A batch is at most 100,000 rows and 256 MiB
(a week of sending at the published limit); split a larger file. Rows go one at a time within the published
limit (10 a minute), each under a key made from the batch name and the row (its client_reference, else its
content and place among identical rows), and every answer is written to the results ledger before the next row
goes. Run the same command again after a crash or Ctrl-C: answered rows are skipped, the row that was in flight
is sent again with its key, and nothing is ordered twice. Rows appended later are the only ones sent.
Piped, stdout has one tab-separated line per row: line, status, key, invoice or error code, and who answered
it (this-run, earlier-run, or same-as-line-N for a row that repeats another's order); with --wait, a line
per invoice once final (line, final, key, invoice, payment status). --json: one JSON object per row.
Exit 0 when every row was created or existed already, 5 when some were rejected.

Examples:
  $ topup orders batch orders.csv --dry-run
  $ topup orders batch orders.jsonl
  $ topup --json orders batch orders.csv > results.jsonl
  $ cat orders.jsonl | topup orders batch - --format jsonl --batch 2026-04-week-1`,
    )
    .action(async (file: string, flags: BatchFlags) => (await import('./batch-run.js')).runBatch(ctx, file, flags));
}
