/** Colour only on a terminal, never with --no-color or NO_COLOR. Piped output stays plain. */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
  cyan(text: string): string;
}

const same = (text: string): string => text;

/** No colour, and no chalk: piped and scripted runs never load it. */
export const plainStyle: Style = { bold: same, dim: same, green: same, yellow: same, red: same, cyan: same };
