import { appendFileSync, mkdtempSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../mocks/inspect/request-journal.js';
import { requestLogFile } from '../../mocks/state/request-log.js';
import { journalEntry } from '../support/journal-entry.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'topup-request-log-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const entry = (path: string, id = 1): JournalEntry => journalEntry({ path, id });

describe('the request log beside a state file', () => {
  it('numbers entries on from the last one, whatever ids the sandbox gave them', async () => {
    const log = requestLogFile(join(dir, 'state.json'));
    expect(await log.read()).toEqual([]);
    expect((await log.append([entry('/a', 1), entry('/b', 2)])).map((e) => e.id)).toEqual([1, 2]);
    expect((await log.append([entry('/c', 1)])).map((e) => e.id)).toEqual([3]);
    expect((await log.read()).map((e) => [e.id, e.path])).toEqual([
      [1, '/a'],
      [2, '/b'],
      [3, '/c'],
    ]);
  });

  it('stays bounded: at `size` entries the current file becomes the old one, and reads give the newest `size`', async () => {
    const log = requestLogFile(join(dir, 'state.json'), 3);
    for (let i = 1; i <= 8; i++) await log.append([entry(`/p${i}`)]);
    expect((await log.read()).map((e) => e.id)).toEqual([6, 7, 8]);
    const lines = (name: string) => readFileSync(join(dir, name), 'utf8').trimEnd().split('\n').length;
    expect(lines('state.json.requests.ndjson') + lines('state.json.requests.1.ndjson')).toBeLessThanOrEqual(6);
    expect((await log.append([entry('/p9')])).map((e) => e.id)).toEqual([9]);
  });

  it('skips a line torn by a crash, and keeps the next entry off it', async () => {
    const log = requestLogFile(join(dir, 'state.json'));
    await log.append([entry('/a')]);
    appendFileSync(log.path, '{"id": 2, "path": "/tor');
    const before = await log.version();
    expect((await log.append([entry('/b')])).map((e) => e.id)).toEqual([2]);
    expect((await log.read()).map((e) => [e.id, e.path])).toEqual([
      [1, '/a'],
      [2, '/b'],
    ]);
    expect(await log.version()).not.toBe(before);
  });

  // No generation topup writes comes near this (1,000 entries whose bodies are cut to 16 KiB); one planted or grown
  // there is read from its end, its newest entries, and never held whole: whole, it would not even fit in a string.
  it('reads a generation of 600 MiB from its end only: its newest entries show, and appending goes on from them', async () => {
    const log = requestLogFile(join(dir, 'state.json'));
    await log.append([entry('/first')]);
    truncateSync(log.path, 600 * 2 ** 20);
    appendFileSync(log.path, `\n${JSON.stringify(entry('/newest', 7))}\n`);
    expect((await log.read()).map((e) => [e.id, e.path])).toEqual([[7, '/newest']]);
    expect((await log.append([entry('/next')])).map((e) => e.id)).toEqual([8]);
    expect((await log.read()).map((e) => e.path)).toEqual(['/newest', '/next']);
  });
});
