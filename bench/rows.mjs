// @ts-check
/** Every row a complete run reports, in table order; run.mjs and the CI smoke check that none is missing. */
export const EXPECTED_ROWS = [
  'startup.version',
  'startup.help',
  'startup.remote',
  'startup.offline',
  'startup.empty.version',
  'startup.empty.help',
  'startup.empty.remote',
  'startup.empty.offline',
  ...[2, 10].flatMap((c) => ['catalog', 'balance', 'order'].flatMap((e) => [`http.${e}.c${c}.rps`, `http.${e}.c${c}.latency`])),
  'peer.prism',
  ...[10_000, 100_000].flatMap((n) => ['list', 'get', 'create'].map((e) => `scale.${e}.${n}`)),
  'scale.rss.100',
  'scale.rss.10000',
  'scale.rss.100000',
  'scale.state-create.10000',
  'scale.state-create.100000',
  'scale.restore.100000',
  'client.overhead',
  'pacing.time',
  'pacing.429',
];
