import { ApiError } from '../core/exchange.js';
import type { Db } from '../store/db.js';
import { magicOutcomeOf } from '../store/magic-values.js';
import type { OrderInput } from './order-request.js';

/** Orders buy between these many credits. */
export const MIN_CREDITS = 10;
export const MAX_CREDITS = 100_000;

export interface PlatformCheck {
  /** The username as the platform spells it. */
  username: string;
  credit_amount: number;
}

const reject = (message: string) => new ApiError(422, message, 'PLATFORM_VALIDATION_FAILED');

/** Checks username, place and pass (or VIP server) against the game platform, as the real service does. */
export function checkAgainstPlatform(db: Db, input: OrderInput): PlatformCheck {
  const user = db.platformUsers.get(input.platform_username.toLowerCase());
  if (user === undefined) throw reject(`Platform user '${input.platform_username}' was not found.`);
  const place = db.platformPlaces.get(String(input.place_id));
  if (place === undefined) throw reject(`Place ${input.place_id} was not found on the platform.`);
  if (place.owner_id !== user.id) throw reject(`Place ${input.place_id} does not belong to platform user '${user.username}'.`);

  let price: number;
  if (input.order_type === 'gamepass') {
    const pass = db.platformPasses.get(String(input.platform_pass_id));
    if (pass === undefined || pass.place_id !== place.id)
      throw reject(`Pass ${input.platform_pass_id} is not a pass of place ${place.id}.`);
    if (!pass.for_sale) throw reject(`Pass ${pass.id} is not for sale.`);
    if (magicOutcomeOf(input) === 'platform_rejects')
      throw reject(`The platform rejected pass ${pass.id} (the test value for a rejected pass).`);
    price = pass.price;
  } else {
    const server = db.vipServers.get(String(input.platform_pass_id));
    if (server === undefined || server.place_id !== place.id)
      throw reject(`VIP server ${input.platform_pass_id} is not a VIP server of place ${place.id}.`);
    if (!server.active) throw reject(`VIP server ${server.id} is not active.`);
    price = server.price;
  }
  if (price < MIN_CREDITS || price > MAX_CREDITS) {
    throw reject(`The price of ${price} credits is outside the accepted range of ${MIN_CREDITS} to ${MAX_CREDITS}.`);
  }
  return { username: user.username, credit_amount: price };
}
