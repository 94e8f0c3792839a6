/**
 * The sandbox's data, on the ground only: the tables and their indexes (db.ts, table.ts, table-keys.ts, store.ts), the
 * record shapes (records.ts), the queue of timed moves (due-queue.ts), the time range a state may hold
 * (time-range.ts), and what a new sandbox starts with: the seed (seed.ts, token-digest.ts), its fixtures
 * (fixtures.ts) and the magic test values (magic-values.ts).
 * This index only documents the folder: import the module you need.
 */
export {};
