/**
 * The sandbox's control API, outside the interface: its path prefix, and the header its every answer carries, by
 * which a client tells a topup sandbox from a real server before it acts on it. Zod-free, for the CLI's start-up path.
 */
export const CONTROL_PREFIX = '/__sandbox';
export const CONTROL_HEADER = 'x-topup-sandbox';
