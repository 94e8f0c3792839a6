import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ANSI_ESCAPE, LEAN } from '../support/cli-assertions.js';
import { seedRichHistory, useHarness, type Harness } from './read-harness.js';

let h: Harness;
useHarness(
  (created) => {
    h = created;
  },
  { seed: seedRichHistory },
);

/** The packages table as every server sends it (all its fields are guaranteed), at 200, 80 and 40 columns. */
const PACKAGES_WIDE = [
  'CODE     NAME            CREDITS         PRICE',
  'CR80     80 Credits           80     Rp 10.000',
  'CR400    400 Credits         400     Rp 48.000',
  'CR800    800 Credits         800     Rp 94.000',
  'CR1700   1,700 Credits     1.700    Rp 195.000',
  'CR4500   4,500 Credits     4.500    Rp 499.000',
  'CR10000  10,000 Credits   10.000  Rp 1.080.000',
  'CR22500  22,500 Credits   22.500  Rp 2.400.000',
  '',
];

describe('tables take the terminal width: fixed columns keep theirs, free text is shortened with …', () => {
  it.each([
    { columns: 200, out: PACKAGES_WIDE },
    { columns: 80, out: PACKAGES_WIDE },
    {
      columns: 40,
      out: [
        'CODE     NAME      CREDITS         PRICE',
        'CR80     80 Cred…       80     Rp 10.000',
        'CR400    400 Cre…      400     Rp 48.000',
        'CR800    800 Cre…      800     Rp 94.000',
        'CR1700   1,700 C…    1.700    Rp 195.000',
        'CR4500   4,500 C…    4.500    Rp 499.000',
        'CR10000  10,000 …   10.000  Rp 1.080.000',
        'CR22500  22,500 …   22.500  Rp 2.400.000',
        '',
      ],
    },
  ])('packages at $columns columns', async ({ columns, out }) => {
    const result = await h.run(['packages', '--no-color'], { tty: true, columns });
    expect(result).toEqual({ code: 0, out: out.join('\n'), err: '' });
  });

  // The slug is what `articles show` takes: it is never cut or left out. At 80 columns the date goes first, at 40 the
  // category and the title too (see `topup help formatting`).
  it.each([
    {
      columns: 200,
      out: [
        'PUBLISHED                CATEGORY  SLUG                                  TITLE',
        '2026-01-02 08:00 +00:00  news      paying-an-invoice-step-by-step        Paying an invoice step by step',
        '2026-01-01 08:00 +00:00  guide     how-to-create-a-pass-for-your-top-up  How to create a pass for your top-up',
        '',
      ],
    },
    {
      columns: 80,
      out: [
        'CATEGORY  SLUG                                  TITLE',
        'news      paying-an-invoice-step-by-step        Paying an invoice step by step',
        'guide     how-to-create-a-pass-for-your-top-up  How to create a pass for your t…',
        '',
      ],
    },
    {
      columns: 40,
      out: ['SLUG', 'paying-an-invoice-step-by-step', 'how-to-create-a-pass-for-your-top-up', ''],
    },
  ])('articles at $columns columns', async ({ columns, out }) => {
    const result = await h.run(['articles', 'list', '--page', '2', '--no-color'], { tty: true, columns });
    expect(result.out).toBe(out.join('\n'));
  });

  it('piped output is never shortened, whatever the width', async () => {
    const result = await h.run(['packages'], { columns: 40 });
    expect(result.out.split('\n')[0]).toBe('CR80\t80 Credits\t80\t10000');
    const articles = await h.run(['articles', 'list', '--page', '2'], { columns: 40 });
    expect(articles.out).toBe(
      '2026-01-02T08:00:00Z\tnews\tpaying-an-invoice-step-by-step\tPaying an invoice step by step\n' +
        '2026-01-01T08:00:00Z\tguide\thow-to-create-a-pass-for-your-top-up\tHow to create a pass for your top-up\n',
    );
  });

  /** The sandbox's packages, renamed: wide characters and emoji, as a real shop's names may be. */
  const renamed: Record<string, string> = { CR80: '80 クレジット', CR400: '400 💎 Gems', CR800: '800 Credits' };
  const renamingFetch = (): typeof fetch => async (input, init) => {
    const answer = await h.sandbox.fetch(input, init);
    const body = JSON.parse(await answer.text()) as { data: { packages: { code: string; name: string }[] } };
    body.data.packages = body.data.packages.filter((p) => p.code in renamed).map((p) => ({ ...p, name: renamed[p.code]! }));
    return new Response(JSON.stringify(body), { status: answer.status, headers: { 'content-type': 'application/json' } });
  };

  it.each([
    {
      columns: 80,
      out: [
        'CODE   NAME           CREDITS      PRICE',
        'CR80   80 クレジット       80  Rp 10.000',
        'CR400  400 💎 Gems        400  Rp 48.000',
        'CR800  800 Credits        800  Rp 94.000',
        '',
      ],
    },
    {
      columns: 36,
      // 9 cells for the name: a wide character that would end in the 9th cell does not fit, and leaves one blank.
      out: [
        'CODE   NAME       CREDITS      PRICE',
        'CR80   80 クレ…        80  Rp 10.000',
        'CR400  400 💎 G…      400  Rp 48.000',
        'CR800  800 Cred…      800  Rp 94.000',
        '',
      ],
    },
  ])('wide characters and emoji take two cells, at $columns columns', async ({ columns, out }) => {
    const result = await h.run(['packages', '--no-color'], { tty: true, columns, fetch: renamingFetch() });
    expect(result.out).toBe(out.join('\n'));
  });
});

describe('the pager for long lists on a terminal', () => {
  let dir: string;
  let paged: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'topup-pager-'));
    paged = join(dir, 'paged.txt');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A pager that keeps what it is given in a file, so that the test can read what a person would have seen. */
  const toFile = () => `cat > '${paged}'`;
  const env = (extra: Record<string, string | undefined>) => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', ...extra });

  it.each([
    { name: 'taller than the terminal: paged', rows: 5, tty: true, env: { TOPUP_PAGER: 'PAGER' }, pagedOut: true },
    { name: 'fits the terminal: printed', rows: 50, tty: true, env: { TOPUP_PAGER: 'PAGER' }, pagedOut: false },
    { name: 'height unknown: paged (less -F quits if it fits)', rows: undefined, tty: true, env: { TOPUP_PAGER: 'PAGER' }, pagedOut: true },
    { name: 'piped: never paged', rows: 5, tty: false, env: { TOPUP_PAGER: 'PAGER' }, pagedOut: false },
    { name: 'PAGER when TOPUP_PAGER is unset', rows: 5, tty: true, env: { TOPUP_PAGER: undefined, PAGER: 'PAGER' }, pagedOut: true },
    { name: 'TOPUP_PAGER wins over PAGER', rows: 5, tty: true, env: { TOPUP_PAGER: 'cat', PAGER: 'PAGER' }, pagedOut: false },
    { name: 'an empty TOPUP_PAGER turns it off', rows: 5, tty: true, env: { TOPUP_PAGER: '', PAGER: 'PAGER' }, pagedOut: false },
  ])('$name', async ({ rows, tty, env: given, pagedOut }) => {
    const withPager = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, v === 'PAGER' ? toFile() : v]));
    const result = await h.run(['packages', '--no-color'], { tty, rows, env: env(withPager) });
    expect(result.code).toBe(0);
    const table = tty ? PACKAGES_WIDE.join('\n') : result.out;
    if (pagedOut) {
      expect(result.out).toBe('');
      expect(readFileSync(paged, 'utf8')).toBe(table);
    } else {
      expect(existsSync(paged)).toBe(false);
      expect(result.out).toBe(table);
    }
  });

  it('list commands page, with their hints after the pager has quit; --json is never paged', async () => {
    const result = await h.run(['orders', 'list', '--per-page', '2', '--no-color'], {
      tty: true,
      rows: 3,
      env: env({ TOPUP_PAGER: toFile() }),
    });
    expect(result.out).toBe('');
    expect(readFileSync(paged, 'utf8').split('\n')).toHaveLength(4);
    if (!LEAN)
      expect(result.err).toMatch(
        /^Page 1 of 2 \(4 orders\)\. Next: topup --base-url http:\/\/sandbox\.localhost orders list --per-page 2 --page 2\n$/,
      );
    rmSync(paged);
    const json = await h.run(['--json', 'orders', 'list'], { tty: true, rows: 3, env: env({ TOPUP_PAGER: toFile() }) });
    expect(JSON.parse(json.out)).toHaveProperty('orders');
    expect(existsSync(paged)).toBe(false);
  });

  it('a pager that cannot start: one notice, then the text printed directly', async () => {
    const result = await h.run(['packages', '--no-color'], {
      tty: true,
      rows: 5,
      env: env({ TOPUP_PAGER: 'no-such-pager-anywhere --flag' }),
    });
    expect(result).toEqual({
      code: 0,
      out: PACKAGES_WIDE.join('\n'),
      err: 'The pager `no-such-pager-anywhere --flag` could not start; printing directly.\n',
    });
  });

  it('a pager that quits before reading everything (q) is no error: exit 0, nothing on stderr', async () => {
    // 3000 packages: far more than a pipe holds, so the pager's early exit breaks the pipe while we still write.
    const many = (): typeof fetch => async (input, init) => {
      const answer = await h.sandbox.fetch(input, init);
      const body = JSON.parse(await answer.text()) as { data: { packages: unknown[] } };
      body.data.packages = Array.from({ length: 3000 }, () => body.data.packages).flat();
      return new Response(JSON.stringify(body), { status: answer.status, headers: { 'content-type': 'application/json' } });
    };
    const result = await h.run(['packages', '--no-color'], {
      tty: true,
      rows: 3,
      fetch: many(),
      env: env({ TOPUP_PAGER: `head -c 10 > '${paged}'` }),
    });
    expect(result).toEqual({ code: 0, out: '', err: '' });
    expect(readFileSync(paged, 'utf8')).toBe('CODE     N');
  });

  it('a pager’s own complaints reach stderr once it has quit', async () => {
    const result = await h.run(['packages', '--no-color'], {
      tty: true,
      rows: 5,
      env: env({ TOPUP_PAGER: `cat > /dev/null; echo 'pager: bad option' >&2` }),
    });
    expect(result).toEqual({ code: 0, out: '', err: 'pager: bad option\n' });
  });

  it('Ctrl-C while the pager is open: the pager keeps the terminal until it quits, then exit 130', async () => {
    const controller = new AbortController();
    // The pager "sees" the Ctrl-C after it has started, like a person pressing it while reading.
    const marker = join(dir, 'started');
    const watcher = setInterval(() => {
      if (existsSync(marker)) {
        clearInterval(watcher);
        controller.abort(Object.assign(new Error('Interrupted.'), { name: 'InterruptedError', signal: 'SIGINT' }));
      }
    }, 5);
    const result = await h.run(['packages', '--no-color'], {
      tty: true,
      rows: 5,
      signal: controller.signal,
      env: env({ TOPUP_PAGER: `touch '${marker}'; sleep 0.3; cat > '${paged}'` }),
    });
    clearInterval(watcher);
    expect(result.code).toBe(130);
    expect(readFileSync(paged, 'utf8')).toBe(PACKAGES_WIDE.join('\n'));
    expect(result.out).toBe('');
  });
});

describe('colour: forced into a pipe by FORCE_COLOR or CLICOLOR_FORCE; NO_COLOR and --no-color win', () => {
  it.each([
    { name: 'piped', tty: false, args: [], env: {}, coloured: false },
    { name: 'piped, FORCE_COLOR=1', tty: false, args: [], env: { FORCE_COLOR: '1' }, coloured: true },
    { name: 'piped, CLICOLOR_FORCE=1', tty: false, args: [], env: { CLICOLOR_FORCE: '1' }, coloured: true },
    { name: 'piped, CLICOLOR_FORCE=0', tty: false, args: [], env: { CLICOLOR_FORCE: '0' }, coloured: false },
    { name: 'piped, FORCE_COLOR=1 and NO_COLOR=1', tty: false, args: [], env: { FORCE_COLOR: '1', NO_COLOR: '1' }, coloured: false },
    { name: 'piped, FORCE_COLOR=1 and --no-color', tty: false, args: ['--no-color'], env: { FORCE_COLOR: '1' }, coloured: false },
    { name: 'terminal', tty: true, args: [], env: {}, coloured: true },
    { name: 'terminal, FORCE_COLOR=0', tty: true, args: [], env: { FORCE_COLOR: '0' }, coloured: false },
    { name: 'terminal, NO_COLOR=1', tty: true, args: [], env: { NO_COLOR: '1' }, coloured: false },
    { name: 'terminal, --no-color', tty: true, args: ['--no-color'], env: {}, coloured: false },
    { name: 'terminal, TERM=dumb', tty: true, args: [], env: { TERM: 'dumb' }, coloured: false },
    { name: 'terminal, CLICOLOR=0', tty: true, args: [], env: { CLICOLOR: '0' }, coloured: false },
    { name: 'terminal, TERM=dumb and FORCE_COLOR=1', tty: true, args: [], env: { TERM: 'dumb', FORCE_COLOR: '1' }, coloured: true },
  ])('$name: coloured $coloured', async ({ tty, args, env, coloured }) => {
    const result = await h.run(['orders', 'list', ...args], { tty, env, columns: 200 });
    expect(result.code).toBe(0);
    if (coloured) expect(result.out).toContain('\u001b[36mprocessing\u001b[39m');
    else expect(result.out).not.toContain(ANSI_ESCAPE);
  });

  it('forced colour keeps the piped layout: tab-separated rows, raw amounts, ISO times', async () => {
    const result = await h.run(['orders', 'list', '--per-page', '1'], { env: { FORCE_COLOR: '1' } });
    expect(result.out).toBe(
      LEAN
        ? 'INV20260302000005\t\u001b[36mprocessing\u001b[39m\t-\tgamepass\tPixelPiper\t50\t-\t-\n'
        : 'INV20260302000005\t\u001b[36mprocessing\u001b[39m\t\u001b[32mpaid\u001b[39m\tgamepass\tPixelPiper\t50\t6000\t2026-03-02T10:04:00Z\n',
    );
  });
});

describe('times: local with its offset on a terminal, ISO 8601 piped', () => {
  it.each([
    { tz: 'Asia/Jakarta', created: '2026-03-02 17:00 +07:00', expires: '2026-03-02 18:00 +07:00' },
    { tz: 'America/St_Johns', created: '2026-03-02 06:30 -03:30', expires: '2026-03-02 07:30 -03:30' },
    { tz: 'UTC', created: '2026-03-02 10:00 +00:00', expires: '2026-03-02 11:00 +00:00' },
  ])('deposits show on a terminal, TZ=$tz', async ({ tz, created, expires }) => {
    const tty = await h.run(['deposits', 'show', 'INV20260302000001', '--no-color'], { tty: true, env: { TZ: tz } });
    const lines = tty.out.split('\n');
    expect(lines.find((l) => l.startsWith('created'))).toBe(`created      ${LEAN ? '-' : created}`);
    expect(lines.find((l) => l.startsWith('expires'))).toBe(`expires      ${LEAN ? '-' : expires}`);
    const piped = await h.run(['deposits', 'show', 'INV20260302000001'], { env: { TZ: tz } });
    expect(piped.out).toContain(`created_at: ${LEAN ? '-' : '2026-03-02T10:00:00Z'}\n`);
  });

  /** The sandbox as a server that does not say it is topup's sandbox (no instance header), with one odd time. */
  const odd = (): typeof fetch => async (input, init) => {
    const answer = await h.sandbox.fetch(input, init);
    const text = (await answer.text()).replace(/"published_at":"2026-01-02 08:00:00"/, '"published_at":"2 January 2026"');
    return new Response(text, { status: answer.status, headers: { 'content-type': 'application/json' } });
  };

  it('a time a server sends in another form is shown as it was sent, and one without a zone as its wall clock', async () => {
    // A server that does not say it is topup's sandbox (no instance header here): its zone is not known.
    const tty = await h.run(['articles', 'list', '--page', '2', '--no-color'], { tty: true, columns: 200, fetch: odd() });
    expect(tty.out.split('\n').slice(1, 3)).toEqual([
      '2 January 2026       news      paying-an-invoice-step-by-step        Paying an invoice step by step',
      '2026-01-01 08:00:00  guide     how-to-create-a-pass-for-your-top-up  How to create a pass for your top-up',
    ]);
    const piped = await h.run(['articles', 'list', '--page', '2'], { fetch: odd() });
    expect(piped.out.split('\n').slice(0, 2)).toEqual([
      '2 January 2026\tnews\tpaying-an-invoice-step-by-step\tPaying an invoice step by step',
      '2026-01-01T08:00:00\tguide\thow-to-create-a-pass-for-your-top-up\tHow to create a pass for your top-up',
    ]);
    // Its zone named: the wall clock is placed in it, and shown as every other time.
    const jakarta = { TOPUP_SERVER_TIME_ZONE: 'Asia/Jakarta', TZ: 'UTC' };
    const named = await h.run(['articles', 'list', '--page', '2', '--no-color'], { tty: true, columns: 200, fetch: odd(), env: jakarta });
    expect(named.out.split('\n')[2]).toBe(
      '2026-01-01 01:00 +00:00  guide     how-to-create-a-pass-for-your-top-up  How to create a pass for your top-up',
    );
    expect((await h.run(['articles', 'list', '--page', '2'], { fetch: odd(), env: jakarta })).out.split('\n')[1]).toMatch(
      /^2026-01-01T01:00:00Z\t/,
    );
    // topup's own sandbox (its instance header) is UTC, whatever the variable says of other servers.
    const ours = await h.run(['articles', 'list', '--page', '2'], { env: jakarta });
    expect(ours.out.split('\n')[1]).toMatch(/^2026-01-01T08:00:00Z\t/);
    // A name that is no zone is refused before any request to a server; help and the embedded sandbox still work.
    const mars = { TOPUP_SERVER_TIME_ZONE: 'Mars/Base' };
    const wrong = await h.run(['articles', 'list'], { env: mars });
    expect(wrong.code).toBe(2);
    expect(wrong.err).toBe(
      'Error: TOPUP_SERVER_TIME_ZONE is "Mars/Base", which is no time zone: name one as Asia/Jakarta or UTC, or unset it.\n',
    );
    expect((await h.runEmbedded(['help', 'environment'], { env: mars })).code).toBe(0);
    expect((await h.runEmbedded(['articles', 'list'], { env: mars })).code).toBe(0);
  });

  it("a profile's time_zone places its server's wall clocks; the variable wins; a hand-edited bad one stops the command", async () => {
    const login = ['auth', 'login', '--with-token', '--base-url', h.sandbox.baseUrl, '--profile', 'shop'];
    expect((await h.runEmbedded(login, { stdin: h.token('rich'), fetch: odd() })).code).toBe(0);
    expect(await h.runEmbedded(['config', 'set', 'time_zone', 'asia/jakarta', '--json'])).toEqual({
      code: 0,
      out: '{\n  "time_zone": "Asia/Jakarta"\n}\n',
      err: '',
    });
    const firstRow = async (env: Record<string, string> = {}, fetch: typeof globalThis.fetch | undefined = odd()) =>
      (await h.run(['articles', 'list', '--page', '2'], { ...(fetch === undefined ? {} : { fetch }), env })).out.split('\n')[1];
    expect(await firstRow()).toMatch(/^2026-01-01T01:00:00Z\t/);
    expect(await firstRow({ TOPUP_SERVER_TIME_ZONE: 'UTC' })).toMatch(/^2026-01-01T08:00:00Z\t/);
    // topup's own sandbox stays UTC, whatever the profile says.
    expect(await firstRow({}, h.sandbox.fetch)).toMatch(/^2026-01-01T08:00:00Z\t/);
    // Logging in to the same server again keeps its zone; an empty value clears it.
    expect((await h.runEmbedded(login, { stdin: h.token('demo'), fetch: odd() })).code).toBe(0);
    expect((await h.runEmbedded(['config', 'get', 'time_zone'])).out).toBe('Asia/Jakarta\n');
    expect((await h.runEmbedded(['config', 'set', 'time_zone', 'Mars/Base'])).err).toBe(
      'Error: "Mars/Base" is no time zone: name one as Asia/Jakarta or UTC (an empty value clears it).\n',
    );
    // config.json is hand-editable: a zone Intl does not know stops a command for that server before any request.
    const file = join((await h.runEmbedded(['config', 'path'])).out.trim(), 'config.json');
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { profiles: Record<string, Record<string, unknown>> };
    stored.profiles.shop!.time_zone = 'Mars/Base';
    writeFileSync(file, JSON.stringify(stored));
    let asked = 0;
    const wrong = await h.run(['articles', 'list'], { fetch: (input, init) => ((asked += 1), odd()(input, init)) });
    expect(wrong).toEqual({
      code: 1,
      out: '',
      err: `Error: ${file}: the time_zone of profile 'shop' is "Mars/Base", which is no time zone; set it with: topup config set time_zone Asia/Jakarta --profile shop (an empty value clears it).\n`,
    });
    expect(asked).toBe(0);
    expect((await h.runEmbedded(['config', 'set', 'time_zone', ''])).code).toBe(0);
    expect(await firstRow()).toMatch(/^2026-01-01T08:00:00\t/);
  });
});

describe('a tab or line break a server sends stays inside its cell', () => {
  /** The sandbox's answers with every username carrying what would start a fake row. */
  const forging = (): typeof fetch => async (input, init) => {
    const answer = await h.sandbox.fetch(input, init);
    const text = (await answer.text()).replaceAll(
      '"platform_username":"BuilderBob"',
      '"platform_username":"Bob\\nINV999\\tcompleted\\tpaid"',
    );
    return new Response(text, { status: answer.status, headers: { 'content-type': 'application/json' } });
  };

  it('piped and on a terminal: no forged row, the escapes shown', async () => {
    const piped = await h.run(['orders', 'list'], { fetch: forging() });
    expect(piped.code).toBe(0);
    const rows = piped.out.trimEnd().split('\n');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.startsWith('INV2026'))).toBe(true);
    expect(new Set(rows.map((row) => row.split('\t').length)).size).toBe(1);
    expect(piped.out).toContain('Bob\\x0aINV999\\x09completed\\x09paid');
    const tty = await h.run(['orders', 'list', '--no-color'], { tty: true, columns: 300, fetch: forging() });
    expect(tty.out.split('\n').filter((line) => line.startsWith('INV999'))).toEqual([]);
    const code = rows[0]!.split('\t')[0]!;
    const record = await h.run(['orders', 'show', code], { fetch: forging() });
    expect(record.out.split('\n').filter((line) => line.startsWith('INV999'))).toEqual([]);
  });

  /** The sandbox's answers with every invoice code followed by what would look like more lines of a record. */
  const forgingCodes = (): typeof fetch => async (input, init) => {
    const answer = await h.sandbox.fetch(input, init);
    const text = (await answer.text()).replace(/"invoice_code":"(INV\d+)"/g, '"invoice_code":"$1\\nstatus       paid\\nINV999"');
    return new Response(text, { status: answer.status, headers: { 'content-type': 'application/json' } });
  };

  it("a record's title and a created order's code keep a server's line break as its escape", async () => {
    const created = await h.run(['orders', 'create', '--username', 'BuilderBob', '--place', '5001', '--pass', '9001'], {
      fetch: forgingCodes(),
    });
    expect(created.code).toBe(0);
    // inv=$(topup orders create …) gets one line, whatever the server sent.
    expect(created.out).toMatch(/^INV\d+\\x0astatus {7}paid\\x0aINV999\n$/);
    expect(created.err.split('\n').filter((line) => /^(status|INV999)/.test(line))).toEqual([]);
    const code = /^INV\d+/.exec(created.out)![0];
    for (const args of [
      ['orders', 'show', code],
      ['invoices', 'status', code],
    ]) {
      const shown = await h.run([...args, '--no-color'], { tty: true, columns: 200, fetch: forgingCodes() });
      expect(shown.code).toBe(0);
      expect(shown.out.split('\n')[0]).toMatch(/^(Order|Invoice) INV\d+\\x0astatus {7}paid\\x0aINV999$/);
      expect(shown.out.split('\n').filter((line) => line.startsWith('INV999'))).toEqual([]);
    }
  });
});

describe("stderr's colour follows stderr, not stdout", () => {
  it('stdout a terminal and stderr to a file: the notices and the error carry no colour codes', async () => {
    const listed = await h.run(['orders', 'list', '--page', '99'], { tty: true, stderrTTY: false });
    expect(listed.err).toContain('No orders on page 99');
    expect(listed.err).not.toContain(ANSI_ESCAPE);
    const failed = await h.run(['invoices', 'status', 'INV20991231999999'], { tty: true, stderrTTY: false });
    expect(failed.code).not.toBe(0);
    expect(failed.err).toMatch(/^Error: /);
    expect(failed.err).not.toContain(ANSI_ESCAPE);
  });

  it('stdout piped and stderr a terminal: the error is coloured, the data is not', async () => {
    const failed = await h.run(['invoices', 'status', 'INV20991231999999'], { stderrTTY: true });
    expect(failed.err.startsWith('\u001b[31mError:\u001b[39m ')).toBe(true);
    const listed = await h.run(['orders', 'list', '--per-page', '1'], { stderrTTY: true });
    expect(listed.out).not.toContain(ANSI_ESCAPE);
  });
});

describe('progress on stderr while --all fetches pages: for a person watching, never into a pipe', () => {
  // eslint-disable-next-line no-control-regex -- the spinner's frames are control sequences
  const frames = (err: string) => [...err.matchAll(/\r\u001b\[K(?:[\u2800-\u28ff] ([^\r\n]*))?/g)].map((m) => m[1] ?? '');

  it('stderr a terminal: one line per page, cleared before the table and the count', async () => {
    const result = await h.run(['transactions', '--all', '--per-page', '1', '--no-color'], { stderrTTY: true });
    expect(frames(result.err)).toEqual(
      LEAN
        ? ['Fetching transactions…', 'Fetching transactions: page 1, 1 so far…', '']
        : [
            'Fetching transactions…',
            'Fetching transactions: page 1 of 3, 1 so far…',
            'Fetching transactions: page 2 of 3, 2 so far…',
            'Fetching transactions: page 3 of 3, 3 so far…',
            '',
          ],
    );
    // Cleared: what stays on screen after the last frame is the warning a lean server earns, and nothing else.
    expect(result.err.slice(result.err.lastIndexOf('\r\u001b[K') + 4)).toBe(
      LEAN
        ? 'The server does not say whether there are more transactions than these (its answer has no pagination); only the first page is shown.\n'
        : '',
    );
  });

  it.each([
    { name: 'piped', args: [], options: {} },
    { name: '--json on a terminal', args: ['--json'], options: { tty: true } },
  ])('$name: no progress', async ({ args, options }) => {
    const result = await h.run([...args, 'transactions', '--all', '--per-page', '1'], options);
    expect(result.code).toBe(0);
    expect(result.err).not.toContain('Fetching');
    expect(result.err).not.toContain(ANSI_ESCAPE);
  });
});

describe('--all against a server that says more follow on every page', () => {
  /** The sandbox's first page of orders, as every page asked for, each saying more follow. */
  const endless = (): typeof fetch => async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const page = Number(url.searchParams.get('page') ?? '1');
    url.searchParams.set('page', '1');
    const answer = await h.sandbox.fetch(url, init);
    const body = (await answer.json()) as { data: { pagination?: Record<string, unknown> } };
    body.data.pagination = { page, per_page: 100, has_more: true };
    return new Response(JSON.stringify(body), { status: answer.status, headers: { 'content-type': 'application/json' } });
  };

  it('stops with one sentence at its bound, instead of keeping pages until the memory is gone', async () => {
    await seedRichHistory(h);
    const result = await h.run(['orders', 'list', '--all'], { fetch: endless() });
    expect(result).toEqual({
      code: 1,
      out: '',
      err: 'Error: Stopped after 5000 pages: --all keeps every one of the orders to print them at once, up to 5000 pages and 128 MiB, and the server says more follow; page through with --page instead.\n',
    });
  }, 60_000);
});
