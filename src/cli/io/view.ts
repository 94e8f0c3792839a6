import type { Style } from './plain-style.js';

/** How output is shaped for where it goes: a terminal (titles, colour, local times) or a pipe (stable plain text). */
export interface View {
  terminal: boolean;
  style: Style;
  /** The zone for times on a terminal (the TZ variable); undefined: the system's. */
  timeZone?: string | undefined;
  /**
   * The zone of a server's times that name none (the document's `YYYY-MM-DD HH:MM:SS`): UTC when topup's own sandbox
   * answers, or TOPUP_SERVER_TIME_ZONE; undefined when it is not known, and such a time is shown as it was sent.
   */
  readonly serverTimeZone?: string | undefined;
  /** The terminal's width in cells (undefined when piped or unknown): what key/value lines wrap to. */
  width?: number | undefined;
}
