import type { Clock } from '../client/clock.js';

/**
 * Time as commands see it: the client's clock without its jitter source, since the CLI hands the same clock to
 * the client it makes. Tests replace it to run waits and watches instantly.
 */
export type CliClock = Pick<Clock, 'now' | 'sleep'>;

export { LONG_WAIT_MS, systemClock } from '../client/clock.js';
