import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lstat, lstatExact, openFile, rename, unlink } from '../../src/open-file.js';

/*
 * src/open-file.ts: the promise calls topup's own files go through, on node:fs's callbacks instead of
 * node:fs/promises. Each does what the FileHandle method of its name does, and a failure rejects with the system's
 * error, its code kept (the callers tell ENOENT and EEXIST apart by it).
 */

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'topup-open-file-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('OpenFile', () => {
  it('writeFile writes all of a large text; read reads at a position, and at the current one with null', async () => {
    const path = join(dir, 'big.txt');
    const text = 'é'.repeat(3 * 1024 * 1024);
    const file = await openFile(path, constants.O_RDWR | constants.O_CREAT, 0o600);
    try {
      await file.writeFile(text);
      expect((await file.stat()).size).toBe(Buffer.byteLength(text));
      const two = Buffer.alloc(2);
      expect((await file.read(two, 0, 2, 4)).bytesRead).toBe(2);
      expect(two.toString('utf8')).toBe('é');
    } finally {
      await file.close();
    }
    expect(await readFile(path, 'utf8')).toBe(text);
    const again = await openFile(path, constants.O_RDONLY);
    try {
      const first = Buffer.alloc(4);
      await again.read(first, 0, 4, null);
      await again.read(first, 2, 2, null);
      expect(first.toString('utf8')).toBe('éé');
    } finally {
      await again.close();
    }
  });

  it('write appends under O_APPEND, truncate cuts, sync and datasync resolve, a second close does nothing', async () => {
    const path = join(dir, 'log.ndjson');
    await writeFile(path, 'one\n');
    const file = await openFile(path, constants.O_RDWR | constants.O_APPEND);
    expect((await file.write('two\n')).bytesWritten).toBe(4);
    expect((await file.write(Buffer.from('three\n'))).bytesWritten).toBe(6);
    await file.datasync();
    expect(await readFile(path, 'utf8')).toBe('one\ntwo\nthree\n');
    await file.truncate(4);
    await file.sync();
    await file.close();
    await file.close();
    expect(await readFile(path, 'utf8')).toBe('one\n');
  });

  it('createReadStream reads from the current position and leaves the file open', async () => {
    const path = join(dir, 'lines.txt');
    await writeFile(path, 'abcdef');
    const file = await openFile(path, constants.O_RDONLY);
    try {
      await file.read(Buffer.alloc(2), 0, 2, null);
      let text = '';
      for await (const chunk of file.createReadStream({ encoding: 'utf8' })) text += String(chunk);
      expect(text).toBe('cdef');
      expect((await file.stat()).size).toBe(6);
    } finally {
      await file.close();
    }
  });

  it('a stream left early never closes the descriptor: closing waits for it, and a file opened after keeps its own', async () => {
    const path = join(dir, 'long.txt');
    await writeFile(path, 'x'.repeat(4 * 1024 * 1024));
    for (let run = 0; run < 20; run++) {
      const file = await openFile(path, constants.O_RDONLY);
      for await (const chunk of file.createReadStream({ encoding: 'utf8' })) if (String(chunk).length > 0) break;
      await file.close();
      // Most often the number just freed: a late close of the stream's would take this file from under us.
      const other = openSync(path, 'r');
      try {
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect(fstatSync(other).size).toBe(4 * 1024 * 1024);
      } finally {
        closeSync(other);
      }
    }
  });

  it('refuses every call once closed, with EBADF, as a FileHandle does', async () => {
    const path = join(dir, 'closed.txt');
    await writeFile(path, 'abc');
    const file = await openFile(path, constants.O_RDWR);
    await file.close();
    await expect(file.read(Buffer.alloc(1), 0, 1, 0)).rejects.toMatchObject({ code: 'EBADF' });
    await expect(file.write('d')).rejects.toMatchObject({ code: 'EBADF' });
    await expect(file.stat()).rejects.toMatchObject({ code: 'EBADF' });
    await expect(file.truncate(0)).rejects.toMatchObject({ code: 'EBADF' });
    expect(() => file.createReadStream({})).toThrow(expect.objectContaining({ code: 'EBADF' }));
    expect(await readFile(path, 'utf8')).toBe('abc');
  });

  it('failures reject with the system error and its code', async () => {
    const missing = join(dir, 'missing');
    await expect(openFile(missing, constants.O_RDONLY)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(lstat(missing)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(unlink(missing)).rejects.toMatchObject({ code: 'ENOENT' });
    const path = join(dir, 'here');
    await writeFile(path, 'x');
    await expect(openFile(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600)).rejects.toMatchObject({
      code: 'EEXIST',
    });
    await rename(path, join(dir, 'there'));
    expect(typeof (await lstatExact(join(dir, 'there'))).mtimeNs).toBe('bigint');
    await unlink(join(dir, 'there'));
    await expect(lstat(join(dir, 'there'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
