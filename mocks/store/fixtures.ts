import type { CreateOrderRequest, TokenMode } from '../../src/contract/index.js';
import { REVOKED_TOKEN, seedAccounts, type FixtureAccountName } from './seed.js';
import { magicFixtures, magicOrders, type MagicOrderBody, type MagicOutcome } from './magic-values.js';

export type { FixtureAccountName };
import type { Store } from './store.js';

export interface FixtureAccount {
  name: FixtureAccountName;
  mode: TokenMode;
  token: string;
  chat_user_id: string | null;
  balance: number;
}

export interface FixtureCase {
  name: string;
  body: CreateOrderRequest;
  expect: { status: number; code?: string };
}

/** The sandbox's documented test values, the way a payment provider lists its test cards. */
export interface Fixtures {
  accounts: FixtureAccount[];
  revoked_tokens: string[];
  platform: { valid_orders: CreateOrderRequest[]; invalid_orders: CreateOrderRequest[] };
  cases: FixtureCase[];
  /** Orders that end a chosen way by themselves, like a payment provider's test cards (rules/magic-values.ts). */
  magic_orders: MagicOrderFixture[];
}

export interface MagicOrderFixture {
  outcome: MagicOutcome;
  /** How the order ends, in one sentence. */
  ends: string;
  body: MagicOrderBody;
}

const validCases: FixtureCase[] = [
  {
    name: 'gamepass, 100 credits, no discount',
    body: { order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9001 },
    expect: { status: 201 },
  },
  {
    name: 'gamepass by the gamepass_id alias, 1,500 credits, 5 % discount',
    body: { platform_username: 'BuilderBob', place_id: 5001, gamepass_id: 9002 },
    expect: { status: 201 },
  },
  {
    name: 'gamepass, 6,000 credits, 10 % discount',
    body: { order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9004 },
    expect: { status: 201 },
  },
  {
    name: 'VIP server, 200 credits',
    body: { order_type: 'vip_server', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 7001 },
    expect: { status: 201 },
  },
  {
    name: 'gamepass of another creator',
    body: { order_type: 'gamepass', platform_username: 'PixelPiper', place_id: 5002, platform_pass_id: 9101 },
    expect: { status: 201 },
  },
];

const invalidCases: FixtureCase[] = [
  {
    name: 'unknown username',
    body: { order_type: 'gamepass', platform_username: 'ghost_user_404', place_id: 5001, platform_pass_id: 9001 },
    expect: { status: 422, code: 'PLATFORM_VALIDATION_FAILED' },
  },
  {
    name: 'place the user does not own',
    body: { order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5002, platform_pass_id: 9101 },
    expect: { status: 422, code: 'PLATFORM_VALIDATION_FAILED' },
  },
  {
    name: 'pass that is not in the place',
    body: { order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9101 },
    expect: { status: 422, code: 'PLATFORM_VALIDATION_FAILED' },
  },
  {
    name: 'pass that is not for sale',
    body: { order_type: 'gamepass', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 9003 },
    expect: { status: 422, code: 'PLATFORM_VALIDATION_FAILED' },
  },
  {
    name: 'inactive VIP server',
    body: { order_type: 'vip_server', platform_username: 'BuilderBob', place_id: 5001, platform_pass_id: 7002 },
    expect: { status: 422, code: 'PLATFORM_VALIDATION_FAILED' },
  },
  {
    name: 'pass the platform rejects (magic test value)',
    body: magicOrders.platform_rejects,
    expect: { status: 422, code: 'PLATFORM_VALIDATION_FAILED' },
  },
  {
    name: 'user without places',
    body: { order_type: 'gamepass', platform_username: 'NoPlaces_Nina', place_id: 5001, platform_pass_id: 9001 },
    expect: { status: 422, code: 'PLATFORM_VALIDATION_FAILED' },
  },
];

/** The fixture account of this name, from a sandbox's fixtures (in-process, or as `GET /__sandbox/fixtures` sent them). */
export function fixtureAccount<Account extends { name: string; mode?: string } = FixtureAccount>(
  fixtures: { accounts: readonly Account[] },
  name: FixtureAccountName,
  /** For `dual`, which has both keys: its sandbox key's world instead of its live one. */
  mode?: TokenMode,
): Account {
  const account = fixtures.accounts.find((a) => a.name === name && (mode === undefined || a.mode === mode));
  if (account === undefined)
    throw new Error(`The sandbox's fixtures have no ${mode === undefined ? '' : `${mode} `}account named '${name}'.`);
  return account;
}

export function buildFixtures(store: Store): Fixtures {
  const accounts = seedAccounts.map((a) => ({
    name: a.name,
    mode: a.token.mode,
    token: a.token.token,
    // The chat link is the account's, whichever world the key opens (rules/worlds.ts).
    chat_user_id: 'live_account_id' in a ? (seedAccounts.find((live) => live.id === a.live_account_id)?.chat ?? null) : a.chat,
    balance: store.db.accounts.get(String(a.id))?.balance ?? a.balance,
  }));
  return {
    accounts,
    revoked_tokens: [REVOKED_TOKEN],
    platform: { valid_orders: validCases.map((c) => c.body), invalid_orders: invalidCases.map((c) => c.body) },
    cases: [...validCases, ...invalidCases],
    magic_orders: magicFixtures(),
  };
}
