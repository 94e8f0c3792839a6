import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { terminalMeasure } from '../../src/cli/io/text-width.js';
import { LEAN } from '../support/cli-assertions.js';
import { fakeIO, tempConfigDir } from '../support/fake-io.js';
import { runCli } from './run-cli.js';
import { seedRichHistory, useHarness, type Harness, type RunResult } from './read-harness.js';

/**
 * Every command that prints a table or aligned lines, at 60, 80 and 120 columns (issue 24): on a terminal no line of
 * stdout is wider than the terminal, measured in the cells a terminal draws (wide characters take two); what names a
 * row (or a record's labels) still shows at 60; and piped, every field is whole, at any width.
 *
 * The catalog is a list: CASES below, each naming the files whose output it covers. The guard at the end greps
 * src/cli for what prints aligned output (renderTable, renderFields, renderRecord, logLine, runList, runShow, showWholeList, padEnd)
 * and fails for a file that is in neither CASES nor NOT_TABLES, so a new table cannot go untested.
 */

const WIDTHS = [60, 80, 120] as const;

/** Text that forces width: a long title and one of wide characters, 7-digit credits, a long path. */
const LONG_TITLE = 'How to top up credits for every platform, step by step, with screenshots and answers';
const WIDE_TITLE = 'クレジットのチャージ方法：すべてのプラットフォームのための完全ガイド';
const BIG_PACKAGE = 'Mega pack: 1,500,000 Credits for the whole guild, its friends and their friends';
const LONG_PATH = '/me/orders/INV20260302000003/and/a/path/nobody/serves';

interface WidthCase {
  name: string;
  /** The files (under src/cli/commands) whose aligned output this case covers: the guard's map. */
  printedBy: string[];
  args: string[];
  /**
   * remote: the harness's sandbox (rich history and the long values above) as `rich`; embedded: the offline sandbox
   * of a fresh config folder, after `setup`; serve: `topup mock serve --fresh`'s banner.
   */
  on: 'remote' | 'embedded' | 'serve';
  setup?: string[][];
  /** Shown at every width, 60 included: what names a row (its column's header), or a record's labels. */
  keeps: string[];
  /** Whole in the piped output, whatever the width. */
  whole: string[];
  /**
   * A line may be wider than the terminal only when what overflows is one word of this shape (a URL, a token), which
   * is never cut, and what comes before it fits.
   */
  unbreakable?: RegExp;
  /**
   * The lean sandbox (only what the document guarantees) sends none of the values `keeps` and `whole` name: there
   * only the widths are checked.
   */
  leanDashes?: true;
  /** Its stderr is aligned too (the serve banner's control calls). */
  stderr?: true;
  /** Only the lines before the first blank one are aligned (after them: an article's Markdown, as written). */
  fieldsOnly?: true;
  /**
   * Lines that follow this machine's clock (the sandbox clock's offset from it): two runs a moment apart may differ
   * in their numbers, so the piped runs are compared with those lines' digits masked (their words still count).
   */
  movesWithTime?: RegExp;
}

const CASES: WidthCase[] = [
  {
    name: 'packages',
    printedBy: ['catalog/packages.ts', 'shared/whole-list.ts'],
    args: ['packages'],
    on: 'remote',
    keeps: ['CODE', 'CR1500000'],
    whole: [`CR1500000\t${BIG_PACKAGE}\t1500000`],
  },
  {
    name: 'payment-methods',
    printedBy: ['catalog/payment-methods.ts', 'shared/whole-list.ts'],
    args: ['payment-methods'],
    on: 'remote',
    leanDashes: true,
    keeps: ['CODE'],
    whole: ['balance'],
  },
  { name: 'health', printedBy: ['catalog/health.ts'], args: ['health'], on: 'remote', keeps: ['status'], whole: ['status: '] },
  {
    name: 'articles list',
    printedBy: ['articles/list.ts', 'shared/paging.ts'],
    args: ['articles', 'list'],
    on: 'remote',
    keeps: ['SLUG', 'top-up-guide', 'charge-guide-ja'],
    whole: [LONG_TITLE, WIDE_TITLE],
  },
  {
    name: 'articles show',
    printedBy: ['articles/show.ts'],
    args: ['articles', 'show', 'top-up-guide'],
    on: 'remote',
    keeps: ['title', 'link'],
    whole: [`title: ${LONG_TITLE}`],
    fieldsOnly: true,
    unbreakable: /^https?:\/\/\S+$/,
  },
  {
    // Measured in cells, as a table is: a title of wide characters takes twice its length, and breaks between them.
    name: 'articles show, a title of wide characters',
    printedBy: ['articles/show.ts', 'shared/show-record.ts'],
    args: ['articles', 'show', 'charge-guide-ja'],
    on: 'remote',
    keeps: ['title', 'link'],
    whole: [`title: ${WIDE_TITLE}`],
    fieldsOnly: true,
    unbreakable: /^https?:\/\/\S+$/,
  },
  {
    name: 'orders list',
    printedBy: ['orders/list.ts'],
    args: ['orders', 'list'],
    on: 'remote',
    keeps: ['INVOICE', 'INV20260302000003'],
    whole: ['INV20260302000003\t', 'BuilderBob'],
  },
  {
    name: 'orders show',
    printedBy: ['orders/show.ts', 'shared/show-record.ts'],
    args: ['orders', 'show', 'INV20260302000003'],
    on: 'remote',
    keeps: ['invoice', 'username'],
    whole: ['BuilderBob'],
    unbreakable: /^https?:\/\/\S+$/,
  },
  {
    name: 'invoices show',
    printedBy: ['invoices/show.ts'],
    args: ['invoices', 'show', 'INV20260302000003'],
    on: 'remote',
    keeps: ['invoice'],
    whole: ['INV20260302000003'],
    unbreakable: /^https?:\/\/\S+$/,
  },
  {
    name: 'invoices status',
    printedBy: ['invoices/status.ts'],
    args: ['invoices', 'status', 'INV20260302000003'],
    on: 'remote',
    keeps: ['invoice'],
    whole: ['INV20260302000003'],
  },
  {
    name: 'deposits list',
    printedBy: ['deposits/list.ts'],
    args: ['deposits', 'list'],
    on: 'remote',
    keeps: ['INVOICE', 'INV20260302000006'],
    whole: ['INV20260302000006\t', '2500000'],
  },
  {
    name: 'deposits show',
    printedBy: ['deposits/show.ts'],
    args: ['deposits', 'show', 'INV20260302000006'],
    on: 'remote',
    keeps: ['invoice'],
    whole: ['2500000'],
    unbreakable: /^https?:\/\/\S+$/,
  },
  {
    name: 'transactions',
    printedBy: ['transactions/index.ts'],
    args: ['transactions'],
    on: 'remote',
    leanDashes: true,
    keeps: ['ID'],
    whole: ['2500000'],
  },
  {
    name: 'balance',
    printedBy: ['balance/index.ts'],
    args: ['balance'],
    on: 'remote',
    leanDashes: true,
    keeps: ['balance'],
    whole: ['balance: 12544000'],
  },
  { name: 'me', printedBy: ['account/me.ts'], args: ['me'], on: 'remote', leanDashes: true, keeps: ['username'], whole: ['rich'] },
  {
    name: 'dashboard',
    printedBy: ['account/dashboard.ts'],
    args: ['dashboard'],
    on: 'remote',
    leanDashes: true,
    keeps: ['balance', 'INVOICE'],
    whole: ['INV20260302000003'],
  },
  {
    name: 'doctor',
    printedBy: ['doctor/run.ts'],
    args: ['doctor'],
    on: 'remote',
    keeps: ['target', 'rate limits', 'token'],
    whole: ['rate limits: ✓ no X-RateLimit-* headers; the client keeps to the published limits'],
  },
  {
    name: 'auth status',
    printedBy: ['auth/status.ts'],
    args: ['auth', 'status'],
    on: 'remote',
    keeps: ['base_url', 'status'],
    whole: ['http://sandbox.localhost'],
  },
  {
    name: 'config list',
    printedBy: ['config/list.ts'],
    args: ['config', 'list'],
    on: 'embedded',
    keeps: ['profile'],
    whole: ['profile: '],
  },
  {
    name: 'mock fixtures',
    printedBy: ['mock/fixtures.ts'],
    args: ['mock', 'fixtures'],
    on: 'embedded',
    // A case's name before its error code: the code's column goes first.
    keeps: ['ACCOUNT', 'rich', 'gamepass, 6,000 credits, 10 % discount'],
    whole: ['rich', 'gamepass, 6,000 credits, 10 % discount\t201\t-\t{'],
  },
  {
    name: 'mock faults',
    printedBy: ['mock/faults-run.ts'],
    args: ['mock', 'faults'],
    on: 'remote',
    setup: [
      ['mock', 'faults', 'add', '503=0.5/retry-after=2/times=3@createOrder'],
      ['mock', 'faults', 'add', 'latency=2500ms/25%@listOrders'],
    ],
    keeps: ['#', 'FAULT', '503=50%/retry-after=2/times=3@createOrder'],
    whole: ['503=50%/retry-after=2/times=3@createOrder'],
  },
  {
    name: 'mock clock',
    printedBy: ['mock/clock-run.ts'],
    args: ['mock', 'clock'],
    on: 'remote',
    keeps: ['now'],
    whole: ['now: '],
    movesWithTime: /^offset: .*$/gm,
  },
  {
    name: 'mock logs',
    printedBy: ['mock/logs.ts'],
    args: ['mock', 'logs'],
    on: 'embedded',
    setup: [['packages'], ['api', LONG_PATH], ['orders', 'show', 'INV404']],
    keeps: ['GET', '/api/v1/catalog/credit-packages', '200', '404'],
    whole: [`/api/v1${LONG_PATH}\t404`, 'listCreditPackages'],
  },
  {
    name: 'mock requests list',
    printedBy: ['mock/requests-run.ts'],
    args: ['mock', 'requests', 'list'],
    on: 'embedded',
    setup: [['packages'], ['api', LONG_PATH]],
    keeps: ['GET', '/api/v1/catalog/credit-packages', '404'],
    whole: [`/api/v1${LONG_PATH}\t404`],
  },
  {
    name: 'mock serve (banner)',
    printedBy: ['mock/serve-banner.ts', 'mock/serve-run.ts'],
    args: ['mock', 'serve', '--fresh', '--port', '0'],
    on: 'serve',
    keeps: ['dashboard', 'another shell', 'a bot', 'TOKEN'],
    stderr: true,
    whole: ['a bot: export TOPUP_BASE_URL=http://127.0.0.1:'],
    unbreakable: /^https?:\/\/\S+$/,
  },
];

/**
 * Files that print aligned text that is no table of a command's stdout, each with why it is not in CASES. The
 * renderers themselves (io/table.ts, io/format.ts, io/log-line.ts) are tested in table-width.test.ts and mock-logs.
 */
const NOT_TABLES: Record<string, string> = {
  'help/topic-names.ts': 'help text: generated at a fixed width for docs/cli.md and the man page (reference.test.ts)',
  'help/environment.ts': 'help text: generated at a fixed width for docs/cli.md and the man page (reference.test.ts)',
  'orders/create-run.ts': 'the confirmation before an order is sent, on stderr: fitted to stderr (stderrFieldsView), tested below',
  'orders/batch-run.ts': "the batch's plan and summary, on stderr: fitted to stderr (stderrFieldsView), tested below",
};
const RENDERERS = ['io/table.ts', 'io/format.ts', 'io/log-line.ts'];

const widest = (text: string) => Math.max(0, ...text.split('\n').map((line) => terminalMeasure.width(line)));

/** The lines wider than `columns`, but for one whose overflow is a single word the case allows (never cut). */
function tooWide(out: string, columns: number, unbreakable: RegExp | undefined): string[] {
  return out.split('\n').filter((line) => {
    if (terminalMeasure.width(line) <= columns) return false;
    if (unbreakable === undefined) return true;
    const trimmed = line.trimEnd();
    const cut = trimmed.lastIndexOf(' ');
    const word = trimmed.slice(cut + 1);
    return !(unbreakable.test(word) && terminalMeasure.width(trimmed.slice(0, cut + 1)) <= columns);
  });
}

/** The long values, on the harness's sandbox: they are what makes a table too wide. */
async function seedLongValues(h: Harness): Promise<void> {
  await seedRichHistory(h);
  const db = h.sandbox.store.db;
  const article = (slug: string, title: string, day: number) => ({
    slug,
    title,
    category: 'guide',
    excerpt: `${title}: what you need to know.`,
    content: `# ${title}\n\nA long one.\n`,
    author: 'Topup Team',
    tags: ['guide'],
    status: 'published' as const,
    published_at: Date.parse(`2026-03-0${day}T08:00:00Z`),
    updated_at: Date.parse(`2026-03-0${day}T08:00:00Z`),
  });
  await db.articles.insert(article('top-up-guide', LONG_TITLE, 1));
  await db.articles.insert(article('charge-guide-ja', WIDE_TITLE, 2));
  await db.creditPackages.insert({
    code: 'CR1500000',
    name: BIG_PACKAGE,
    credit_amount: 1_500_000,
    price: 187_500_000,
    currency: 'IDR',
    description: 'For a guild.',
    sort_order: 1,
    active: true,
  });
  await h.sandbox.control.deposit({ amount: 2_500_000, account: 'rich', paid: true });
}

/** `topup mock serve --fresh`'s banner: the run, until it has printed everything, then Ctrl-C. */
async function serveBanner(configDir: string, args: string[], options: { tty: boolean; columns: number }): Promise<RunResult> {
  const controller = new AbortController();
  const io = fakeIO({ tty: options.tty, columns: options.columns, env: { TOPUP_CONFIG_DIR: configDir } });
  const running = main(['--no-color', ...args], io, { signal: controller.signal });
  for (let i = 0; i < 300 && !io.out().includes('a browser'); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  controller.abort();
  return { code: await running, out: io.out(), err: io.err() };
}

describe('every table and aligned listing fits 60, 80 and 120 columns; piped, nothing is cut', () => {
  let h: Harness;
  useHarness(
    (created) => {
      h = created;
    },
    { seed: seedLongValues },
  );
  let embedded: { dir: string; cleanup: () => void };
  /** Whether this test's case has run its setup (once a test: the harness and the config folder are new each time). */
  let setUp: boolean;
  beforeEach(() => {
    embedded = tempConfigDir();
    setUp = false;
  });
  afterEach(() => embedded.cleanup());

  const run = async (c: WidthCase, args: string[], options: { tty: boolean; columns: number }): Promise<RunResult> => {
    const steps = setUp ? [] : (c.setup ?? []);
    setUp = true;
    if (c.on === 'remote') {
      for (const step of steps) {
        const done = await h.run(step);
        expect(done.code, done.err).toBeLessThan(2);
      }
      return h.run(args, options);
    }
    if (c.on === 'serve') return serveBanner(embedded.dir, args, options);
    // Not the harness's runEmbedded: mock fixtures and the serve banner print the public test tokens on purpose.
    for (const step of steps) {
      const done = await runCli(embedded.dir, step);
      expect(done.code, done.err).toBeLessThan(2);
    }
    return runCli(embedded.dir, args, options);
  };

  describe.each(CASES)('$name', (c) => {
    it.each(WIDTHS)('at %i columns: no line wider, what names a row still there', async (columns) => {
      const result = await run(c, [...c.args, '--no-color'], { tty: true, columns });
      expect(result.code, result.err).toBe(0);
      const aligned = c.fieldsOnly ? result.out.split('\n\n')[0]! : c.stderr ? `${result.out}\n${result.err}` : result.out;
      expect(tooWide(aligned, columns, c.unbreakable), result.out).toEqual([]);
      if (LEAN && c.leanDashes) return;
      for (const text of c.keeps) expect(result.out, `${text} at ${columns}`).toContain(text);
    });

    it('piped at 40 columns: every field whole, as at 400', async () => {
      const narrow = await run(c, c.args, { tty: false, columns: 40 });
      expect(narrow.code, narrow.err).toBe(0);
      if (!(LEAN && c.leanDashes)) for (const text of c.whole) expect(narrow.out).toContain(text);
      if (c.on === 'serve') return;
      const wide = await run(c, c.args, { tty: false, columns: 400 });
      const steady = (out: string) =>
        c.movesWithTime === undefined ? out : out.replace(c.movesWithTime, (line) => line.replace(/\d+/g, '#'));
      if (c.movesWithTime !== undefined) expect(narrow.out).toMatch(c.movesWithTime);
      expect(steady(narrow.out)).toBe(steady(wide.out));
    });
  });

  it('the long values do make the tables wider than 60 columns when nothing is fitted', async () => {
    const piped = await h.run(['articles', 'list']);
    expect(widest(piped.out.replaceAll('\t', '  '))).toBeGreaterThan(120);
  });
});

describe("the batch's summary on stderr fits a terminal's width there", () => {
  let folder: { dir: string; cleanup: () => void };
  beforeEach(() => {
    folder = tempConfigDir();
  });
  afterEach(() => folder.cleanup());

  it.each([40, 60])('at %i columns: every line but the results path (never cut) fits, and nothing is lost', async (columns) => {
    const input = join(folder.dir, 'rows.csv');
    writeFileSync(input, 'username,place,pass,reference\nBuilderBob,5001,9001,r1\nBuilderBob,5001,9001,r1\nBuilderBob,5001,9002,r2\n');
    const result = await runCli(folder.dir, ['orders', 'batch', input, '--progress', 'lines'], { stderrTTY: true, columns, color: false });
    expect(result.code, result.err).toBe(0);
    const summary = result.err.slice(result.err.indexOf('Batch of 3 rows:'));
    expect(summary).not.toBe(result.err);
    const lines = summary.split('\n');
    expect(lines.filter((line) => terminalMeasure.width(line) > columns && !line.includes(folder.dir))).toEqual([]);
    // The wrapped value reads whole again once its lines are joined.
    expect(lines.join(' ').replace(/ +/g, ' ')).toContain('repeated rows 1 (the same order as an earlier row; not ordered again)');
  });
});

describe('the catalog of tables is complete', () => {
  const root = join(import.meta.dirname, '../../src/cli');
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
    );
  const printsAligned = /\b(renderTable|renderFields|renderRecord|logLine|runList|runShow|showWholeList)(<[^>]*>)?\(|\.padEnd\(/;

  it('every file of src/cli that prints aligned output is covered by a case, or said not to be a table', () => {
    const printing = files(root)
      .map((file) => relative(root, file))
      .filter((file) => !RENDERERS.includes(file) && printsAligned.test(readFileSync(join(root, file), 'utf8')))
      .map((file) => file.replace(/^commands\//, ''));
    const covered = new Set([...CASES.flatMap((c) => c.printedBy), ...Object.keys(NOT_TABLES)]);
    expect(printing.filter((file) => !covered.has(file))).toEqual([]);
    expect(printing.length).toBeGreaterThan(15);
  });

  it('every file a case names exists and still prints aligned output', () => {
    for (const file of CASES.flatMap((c) => c.printedBy)) {
      const text = readFileSync(join(root, 'commands', file), 'utf8');
      expect(printsAligned.test(text) || /runLogs\(/.test(text), file).toBe(true);
    }
  });
});
