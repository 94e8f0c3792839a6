import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** One import of one source file: static, type-only or `import()`, with the file it resolves to (repo-relative). */
export interface ImportArrow {
  from: string;
  to: string;
  specifier: string;
}

/** Every .ts file under `folders` (repo-relative, forward slashes). */
export function sourceFiles(root: string, folders: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const folder of folders) walk(folder);
  return files.sort();
}

/**
 * The relative imports of `files`, dynamic `import()` and `export … from` included: TypeScript's own pre-processor
 * finds them, so an import hidden from a lint rule (a lazy `import()` in a function body) is still an arrow.
 * Package imports (no leading dot) are not arrows between our folders and are left out.
 */
export function importArrows(root: string, files: readonly string[]): ImportArrow[] {
  const arrows: ImportArrow[] = [];
  for (const from of files) {
    const info = ts.preProcessFile(readFileSync(join(root, from), 'utf8'), true, true);
    for (const { fileName: specifier } of info.importedFiles) {
      if (!specifier.startsWith('.')) continue;
      const target = relative(root, resolve(root, dirname(from), specifier))
        .split(sep)
        .join('/');
      arrows.push({ from, to: target.replace(/\.js$/, '.ts'), specifier });
    }
  }
  return arrows;
}

/** The layer a file belongs to: the index of the first layer with a prefix of its path, or undefined. */
function layerOf(file: string, layers: readonly (readonly string[])[]): number | undefined {
  const index = layers.findIndex((prefixes) => prefixes.some((prefix) => file === prefix || file.startsWith(prefix)));
  return index === -1 ? undefined : index;
}

/**
 * Arrows that point up: from a file of a lower layer to a file of a higher one. `layers` lists path prefixes bottom-up;
 * files of one layer may import each other.
 */
export function upwardArrows(arrows: readonly ImportArrow[], layers: readonly (readonly string[])[]): ImportArrow[] {
  return arrows.filter((arrow) => {
    const from = layerOf(arrow.from, layers);
    const to = layerOf(arrow.to, layers);
    return from !== undefined && to !== undefined && to > from;
  });
}

/** Arrows from files under `from` into files under `into` that are not among `allowed` (prefixes). */
export function arrowsPast(arrows: readonly ImportArrow[], from: string, into: string, allowed: readonly string[] = []): ImportArrow[] {
  return arrows.filter(
    (arrow) => arrow.from.startsWith(from) && arrow.to.startsWith(into) && !allowed.some((prefix) => arrow.to.startsWith(prefix)),
  );
}

export function describeArrows(arrows: readonly ImportArrow[]): string[] {
  return arrows.map((arrow) => `${arrow.from} → ${arrow.to}`);
}
