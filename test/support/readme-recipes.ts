import { readFileSync } from 'node:fs';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** A runner's recipe in the README: each file a `<!-- recipe RUNNER: PATH -->` marker names, with the block under it. */
export type Recipe = Record<string, string>;

/** The files of one runner's recipe, in README order; throws when the README has none, so a renamed marker fails. */
export function readmeRecipe(runner: string): Recipe {
  const files: Recipe = {};
  for (const match of README.matchAll(/<!-- recipe ([\w-]+): (\S+) -->\n\n```\w*\n([\s\S]*?)```/g)) {
    if (match[1] === runner) files[match[2]!] = match[3]!;
  }
  if (Object.keys(files).length === 0) throw new Error(`The README has no recipe for ${runner}`);
  return files;
}
