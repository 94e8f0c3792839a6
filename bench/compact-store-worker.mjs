// @ts-check
// A prototype, for the bench only: what a store of the sandbox's records would cost if it were not @msw/data's (one
// object per record, each with a Map and two hidden properties) but columns: numbers in typed arrays, the few values
// of a field (statuses, methods, names) coded as small integers, and one string per distinct other value.
// argv[2]: { mode: 'msw' | 'compact', file }. Prints the JS heap the store holds after a full collection, per record,
// its restore time from the parsed JSON, and JSON.parse of the same text (read before) in the same process.
// Run with --expose-gc. The compact store is not the sandbox's: it answers no request, it only holds the records.
import { readFileSync } from 'node:fs';
import { createSandbox } from '../dist/cli/lazy/mocks/facade/serve.cjs';

/** @type {{ mode: 'msw' | 'compact', file: string }} */
const { mode, file } = JSON.parse(process.argv[2] ?? '{}');
const gc = /** @type {() => void} */ (globalThis.gc);
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/** A table as columns; a record is an index. Strings of few distinct values are coded, numbers are Float64. */
class CompactTable {
  /** @param {string[]} fields @param {number} capacity */
  constructor(fields, capacity) {
    this.fields = fields;
    this.size = 0;
    /** @type {Map<string, { codes: Map<unknown, number>, values: unknown[], column: Uint16Array | unknown[] | Float64Array | null }>} */
    this.columns = new Map(fields.map((field) => [field, { codes: new Map(), values: [], column: null }]));
    this.capacity = capacity;
    /** @type {Map<string, number>} */
    this.byKey = new Map();
  }

  /** @param {Record<string, unknown>} record @param {string} key */
  insert(record, key) {
    const row = this.size++;
    for (const field of this.fields) {
      const column = /** @type {NonNullable<ReturnType<CompactTable['columns']['get']>>} */ (this.columns.get(field));
      const value = record[field];
      if (column.column === null)
        column.column =
          typeof value === 'number' && value !== null
            ? new Float64Array(this.capacity)
            : field === 'invoice_code' || field === 'token_sha256' || field === 'id'
              ? new Array(this.capacity)
              : new Uint16Array(this.capacity);
      if (column.column instanceof Float64Array) column.column[row] = value === null ? Number.NaN : /** @type {number} */ (value);
      else if (column.column instanceof Uint16Array) {
        let code = column.codes.get(value);
        if (code === undefined) {
          code = column.values.push(value) - 1;
          column.codes.set(value, code);
        }
        column.column[row] = code;
      } else column.column[row] = value;
    }
    this.byKey.set(key, row);
  }
}

// The modules both modes load, and what a sandbox's first creation builds once, before the baseline.
await createSandbox();
const before = heap();
const { parse, restore, records, kept } = await restoreStore();
const after = heap();
const rss = process.memoryUsage().rss;
process.stdout.write(
  JSON.stringify({
    parse,
    restore,
    bytesPerRecord: (after - before) / records,
    heapMb: (after - before) / 1048576,
    rssMb: rss / 1048576,
    kept: typeof kept,
  }),
);

/** In a function of its own, so that the file's text and its parsed JSON are garbage once it returns. */
async function restoreStore() {
  const text = readFileSync(file, 'utf8');
  const parseStart = performance.now();
  const parsed = JSON.parse(text);
  const parse = performance.now() - parseStart;
  const records = Object.values(parsed.tables).reduce((sum, rows) => sum + rows.length, 0);
  const startedAt = performance.now();
  /** @type {unknown} */
  let kept;
  if (mode === 'msw') kept = await createSandbox({ snapshot: parsed });
  else {
    /** @type {Record<string, CompactTable>} */
    const tables = {};
    for (const [name, rows] of Object.entries(parsed.tables)) {
      const table = new CompactTable(rows.length > 0 ? Object.keys(rows[0]) : [], rows.length);
      for (const [index, row] of rows.entries()) table.insert(row, row.invoice_code ?? row.token_sha256 ?? String(row.id ?? index));
      tables[name] = table;
    }
    kept = tables;
  }
  return { parse, restore: performance.now() - startedAt, records, kept };
}
