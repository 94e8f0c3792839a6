/**
 * `import text from './file?raw'`: the file's text as a string, put into the bundle when it is built (tsup:
 * scripts/raw-imports.ts; vitest: Vite's own `?raw`), never read from disk at run time.
 */
declare module '*?raw' {
  const text: string;
  export default text;
}
