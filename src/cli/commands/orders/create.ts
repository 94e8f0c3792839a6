import { InvalidArgumentError, Option, type Command } from 'commander';
import { IDEMPOTENCY_KEY_MAX_LENGTH, isVisibleWord } from '../../../contract/visible-word.js';
import type { CliContext } from '../../context.js';
import { orderTypes, parseWholeNumber } from '../shared/choices.js';
import type { CreateOrderFlags } from './create-run.js';

export function registerOrderCreateCommand(orders: Command, ctx: CliContext): Command {
  return orders
    .command('create')
    .description('Create an order; the server computes the price. Asks for missing values on a terminal')
    .addOption(new Option('--type <type>', 'what to order (default: gamepass)').choices(orderTypes))
    .option('--username <name>', 'platform username that receives the order')
    .option('--place <id>', 'place id on the platform', parseWholeNumber('--place', 1))
    .option('--pass <id>', 'game pass id (for --type vip_server: the VIP server id)', parseWholeNumber('--pass', 1))
    .option('--payment-method <code>', 'payment method code (default: invoice; see `topup payment-methods`)')
    .option('--reference <text>', 'your own reference, echoed back and usable as a list filter')
    .option('--idempotency-key <key>', 'repeat an earlier run safely: the same key returns the same order', parseIdempotencyKey)
    .option('--chat-user-id <id>', "linked chat user id, needed to pay by balance (default: the profile's chat_user_id)")
    .option(
      '-y, --yes',
      'create without asking: no confirmation, no offer to wait for payment (needed to pay by balance with a production token and no terminal)',
    )
    .addHelpText(
      'after',
      `
It always sends an Idempotency-Key (yours, or a new one printed on stderr before sending): if a run fails or
is interrupted, run it again with --idempotency-key KEY and you get the same order, never a second one.
Piped, stdout is only the invoice code. Without a terminal (or with --no-input), --username, --place and
--pass are required. Paying by balance with a production token spends real money: on a terminal the summary
says LIVE and asks first; without one, --yes is required.

Examples:
  $ topup orders create
  $ topup orders create --username BuilderBob --place 5001 --pass 9001
  $ inv=$(topup orders create --username BuilderBob --place 5001 --pass 9001 --reference chat-4411)
  $ topup orders create --type vip_server --username BuilderBob --place 5001 --pass 7001 --payment-method balance --yes --profile bot
  $ topup orders create --username BuilderBob --place 5001 --pass 9001 --idempotency-key 6f1c2a4e-retry-me`,
    )
    .action(async (flags: CreateOrderFlags) => (await import('./create-run.js')).runCreateOrder(ctx, flags));
}

function parseIdempotencyKey(value: string): string {
  if (!isVisibleWord(value, IDEMPOTENCY_KEY_MAX_LENGTH))
    throw new InvalidArgumentError(`An idempotency key is 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters without spaces.`);
  return value;
}
