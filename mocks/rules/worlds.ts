import type { TokenMode } from '../../src/contract/index.js';
import type { AccountRecord } from '../store/records.js';
import type { Store } from '../store/store.js';

/**
 * Test and live data, apart. An account that holds both a sandbox and a production key has two records, one per
 * world: the live one, and a test one that names it (`live_account_id`). Each key belongs to one record, so orders,
 * invoices, deposits, balance, transactions and idempotency keys are scoped to the mode of the key that made them
 * without any rule elsewhere having to ask; these functions are what joins the two worlds back into one account.
 */

/** The account as its owner sees it (profile, id, chat link): the live record of a test world. */
export function profileAccount(store: Store, account: AccountRecord): AccountRecord {
  return account.live_account_id === undefined ? account : (store.db.accounts.get(String(account.live_account_id)) ?? account);
}

/** The mode of a record's world: that of its keys (an account with one key has the one world of that key's mode). */
export function worldMode(store: Store, account: AccountRecord): TokenMode {
  if (account.live_account_id !== undefined) return 'sandbox';
  const token = store.db.tokens.ownedBy(account.id).find((t) => !t.revoked);
  return token?.mode ?? 'production';
}

/** The records of the accounts of this name (or username): one, or two for an account with both keys. */
export function accountsNamed(store: Store, name: string): AccountRecord[] {
  return store.db.accounts.all().filter((a) => a.name === name || a.username === name);
}
