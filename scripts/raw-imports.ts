import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import type { Plugin } from 'esbuild';

const ROOT = new URL('../', import.meta.url).pathname;

/**
 * `import text from './file?raw'` as Vite reads it (vitest runs the sources so): the file's text, a string in the
 * bundle. esbuild's `text` loader does the inlining; this plugin only maps the `?raw` form onto it, whatever the
 * file's extension (a `.js` asset is text here, not code). Nothing is read from disk at run time, so the pages
 * (mocks/web/) work from a packed package or a single-file build alike.
 */
export function rawImports(): Plugin {
  return {
    name: 'raw-imports',
    setup(build) {
      // The path keeps its `?raw`: tsup's own CSS plugin loads every path ending in `.css`, in any namespace. It is
      // relative to the repository, as esbuild writes it into the bundle's comments; the file to read travels beside it.
      build.onResolve({ filter: /\?raw$/ }, (args) => {
        const file = resolve(args.resolveDir, args.path.slice(0, -'?raw'.length));
        return { path: `${relative(ROOT, file)}?raw`, namespace: 'raw-text', pluginData: { file } };
      });
      build.onLoad({ filter: /\?raw$/, namespace: 'raw-text' }, async (args) => {
        const { file } = args.pluginData as { file: string };
        return { contents: await readFile(file, 'utf8'), loader: 'text', watchFiles: [file] };
      });
    },
  };
}
