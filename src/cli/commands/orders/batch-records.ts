/*
 * The records of a batch file, streamed: JSON Lines (one text a line) or CSV (RFC 4180 as spreadsheets write it: quoted
 * fields with commas, doubled quotes and line breaks, a byte-order mark, CRLF). A small state machine rather than a
 * dependency: it is the whole of what is needed, and it never holds more than one record.
 */

/** A record longer than this is refused rather than buffered: no order row comes near it. */
export const MAX_RECORD_CHARS = 64 * 1024;

export type BatchFormat = 'jsonl' | 'csv';

export type FileRecord =
  /** `line`: the record's first line in the file, 1-based. CSV gives fields; JSON Lines the line's text. */
  | { line: number; fields: string[]; text?: undefined; error?: undefined }
  | { line: number; text: string; fields?: undefined; error?: undefined }
  | { line: number; error: string; fields?: undefined; text?: undefined };

/** Splits text chunks into records, keeping line numbers; `csv` also splits fields and honours quotes. */
export class RecordSplitter {
  #line = 1;
  #recordLine = 1;
  #field = '';
  #fields: string[] = [];
  #size = 0;
  #inQuotes = false;
  /** The character before was a quote that closed a quoted part (or started an escaped one). */
  #afterQuote = false;
  /** The field has begun: a quote now is a character of it (`5" screen`), not the start of a quoted field. */
  #fieldBegun = false;
  #started = false;
  #tooLong = false;
  /** The last character was a CR: a following LF belongs to it. */
  #afterCr = false;

  /** `maxChars`: the longest record kept; a longer one is an error record, never buffered whole. */
  constructor(
    readonly format: BatchFormat,
    readonly maxChars = MAX_RECORD_CHARS,
  ) {}

  /** The records the chunk completes. */
  push(chunk: string): FileRecord[] {
    const records: FileRecord[] = [];
    let text = chunk;
    if (!this.#started) {
      this.#started = true;
      if (text.startsWith('\ufeff')) text = text.slice(1);
    }
    const csv = this.format === 'csv';
    // Plain runs between special characters are copied as one slice: a character at a time made a 100,000-row file
    // churn through millions of one-letter strings.
    let from = 0;
    for (let at = 0; at < text.length; at++) {
      const code = text.charCodeAt(at);
      const special = code === 10 || code === 13 || (csv && (code === 34 || (code === 44 && !this.#inQuotes)));
      if (!special) {
        this.#afterCr = false;
        if (!this.#inQuotes) {
          this.#afterQuote = false;
          this.#fieldBegun = true;
        }
        continue;
      }
      this.#add(text.slice(from, at));
      from = at + 1;
      const char = text[at]!;
      if (this.#afterCr) {
        this.#afterCr = false;
        if (char === '\n') continue;
      }
      if (csv && this.#inQuotes) {
        if (char === '"') {
          this.#inQuotes = false;
          this.#afterQuote = true;
          continue;
        }
        // A line break inside quotes is part of the field (CRLF as one \n); the file's line count goes on.
        this.#line += 1;
        if (char === '\r') this.#afterCr = true;
        this.#add('\n');
        continue;
      }
      if (char === '\n' || char === '\r') {
        if (char === '\r') this.#afterCr = true;
        records.push(this.#endRecord());
        this.#line += 1;
        this.#recordLine = this.#line;
        continue;
      }
      if (char === '"') {
        // A doubled quote inside a quoted field is one quote; a quote at a field's start opens one; a quote inside a
        // field that began without one is that character (as spreadsheets read `5" screen`): it never joins rows.
        if (this.#afterQuote) this.#add('"');
        else if (this.#fieldBegun) {
          this.#add('"');
          continue;
        }
        this.#inQuotes = true;
        this.#afterQuote = false;
        this.#fieldBegun = true;
        continue;
      }
      // A comma outside quotes ends the field.
      this.#afterQuote = false;
      this.#fieldBegun = false;
      this.#fields.push(this.#field);
      this.#field = '';
    }
    this.#add(text.slice(from));
    return records;
  }

  /** The last record, when the file does not end with a line break; an error when a quote was left open. */
  end(): FileRecord[] {
    if (this.format === 'csv' && this.#inQuotes) {
      return [{ line: this.#recordLine, error: 'a quoted field is never closed (a missing " before the end of the file)' }];
    }
    if (this.#field === '' && this.#fields.length === 0 && !this.#tooLong) return [];
    return [this.#endRecord()];
  }

  #add(part: string): void {
    if (part === '') return;
    this.#size += part.length;
    if (this.#size > this.maxChars) {
      this.#tooLong = true;
      return;
    }
    this.#field += part;
  }

  #endRecord(): FileRecord {
    const line = this.#recordLine;
    const tooLong = this.#tooLong;
    this.#fields.push(this.#field);
    const fields = this.#fields;
    this.#fields = [];
    this.#field = '';
    this.#size = 0;
    this.#tooLong = false;
    this.#afterQuote = false;
    this.#fieldBegun = false;
    if (tooLong) return { line, error: `the row is longer than ${this.maxChars} characters` };
    return this.format === 'csv' ? { line, fields } : { line, text: fields[0] ?? '' };
  }
}

/** Every record of a stream of text chunks, in order, holding one chunk and one record at a time. */
export async function* readRecords(
  chunks: AsyncIterable<string>,
  format: BatchFormat,
  maxChars = MAX_RECORD_CHARS,
): AsyncGenerator<FileRecord> {
  const splitter = new RecordSplitter(format, maxChars);
  for await (const chunk of chunks) yield* splitter.push(chunk);
  yield* splitter.end();
}
