import type { Style } from './plain-style.js';

/** How output is shaped for where it goes: a terminal (titles, colour, local times) or a pipe (stable plain text). */
export interface View {
  terminal: boolean;
  style: Style;
  /** The zone for times on a terminal (the TZ variable); undefined: the system's. */
  timeZone?: string | undefined;
  /** The terminal's width in cells (undefined when piped or unknown): what key/value lines wrap to. */
  width?: number | undefined;
}
