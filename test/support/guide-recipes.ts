import { readFileSync } from 'node:fs';

/** The guide that holds the test runners' recipes (the README links to it). */
export const RECIPES_GUIDE = 'docs/testing-your-bot.md';

const GUIDE = readFileSync(new URL(`../../${RECIPES_GUIDE}`, import.meta.url), 'utf8');

/** A runner's recipe in the guide: each file a `<!-- recipe RUNNER: PATH -->` marker names, with the block under it. */
export type Recipe = Record<string, string>;

/** The files of one runner's recipe, in the guide's order; throws when the guide has none, so a renamed marker fails. */
export function guideRecipe(runner: string): Recipe {
  const files: Recipe = {};
  for (const match of GUIDE.matchAll(/<!-- recipe ([\w-]+): (\S+) -->\n\n```\w*\n([\s\S]*?)```/g)) {
    if (match[1] === runner) files[match[2]!] = match[3]!;
  }
  if (Object.keys(files).length === 0) throw new Error(`${RECIPES_GUIDE} has no recipe for ${runner}`);
  return files;
}
