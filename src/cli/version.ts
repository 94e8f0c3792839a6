declare const __TOPUP_VERSION__: string;

/** The package's version, put in by the build (tsup's and vitest's `define`). */
export const VERSION = typeof __TOPUP_VERSION__ === 'string' ? __TOPUP_VERSION__ : '0.0.0-dev';
