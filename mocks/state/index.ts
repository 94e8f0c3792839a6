/**
 * The sandbox kept in a file: snapshots and their schema (snapshot.ts, state-schema.ts), the change log
 * beside the snapshot, its write-ahead log (change-log.ts), the state file itself (file.ts) with its lock (lock.ts),
 * grouped and flushed writes (group-commit.ts, flush.ts), and the request log an embedded sandbox leaves beside its
 * state (request-log.ts).
 * This index only documents the folder: import the module you need.
 */
export {};
