import type { Store } from '../store/store.js';
import type { AccountRecord } from '../store/records.js';
import { isClockInRange } from '../store/time-range.js';

/** Moves the balance and records the transaction that explains it. */
export async function postTransaction(
  store: Store,
  account: AccountRecord,
  type: 'credit' | 'debit',
  amount: number,
  description: string,
  reference: string | null,
  now: number,
): Promise<void> {
  const next = type === 'credit' ? account.balance + amount : account.balance - amount;
  if (next < 0) throw new Error(`ledger: balance of account ${account.id} would go below zero`);
  store.db.accounts.update(account, { balance: next, balance_updated_at: now });
  // The update checked the new balance; what else the line holds fits when the amount does and the clock is in range.
  const fits = Number.isSafeInteger(amount) && amount >= 0 && isClockInRange(now);
  await store.db.transactions.insertBuilt(
    {
      id: store.nextTransactionId(),
      account_id: account.id,
      type,
      amount,
      balance_after: next,
      description,
      reference,
      created_at: now,
    },
    fits,
  );
}
