import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { plainStyle } from '../../src/cli/io/style.js';
import { fitWidths, keptColumns, renderFields, renderTable, type Column } from '../../src/cli/io/table.js';
import { terminalMeasure, truncateMiddle } from '../../src/cli/io/text-width.js';
import { articleColumns } from '../../src/cli/commands/articles/list.js';
import { depositColumns } from '../../src/cli/commands/deposits/list.js';
import { orderSummaryColumns } from '../../src/cli/commands/orders/list.js';
import { transactionColumns } from '../../src/cli/commands/transactions/index.js';
import { tempConfigDir } from '../support/fake-io.js';
import { runCli } from './run-cli.js';
import { seedRichHistory, useHarness, type Harness } from './read-harness.js';

describe('fitWidths: fixed columns keep their width, free ones share the rest', () => {
  it.each([
    // natural, minimum (header), free, total → widths
    { natural: [5, 10, 5], minimum: [4, 4, 4], free: [false, true, false], total: 40, widths: [5, 10, 5] },
    { natural: [5, 10, 5], minimum: [4, 4, 4], free: [false, true, false], total: 20, widths: [5, 6, 5] },
    { natural: [5, 10, 5], minimum: [4, 4, 4], free: [false, true, false], total: 10, widths: [5, 4, 5] },
    // A narrow free column keeps all of its width; the wider one takes what is left.
    { natural: [5, 20, 6], minimum: [4, 4, 4], free: [false, true, true], total: 30, widths: [5, 15, 6] },
    { natural: [5, 20, 20], minimum: [4, 4, 4], free: [false, true, true], total: 30, widths: [5, 10, 11] },
    { natural: [10, 10], minimum: [4, 4], free: [false, false], total: 5, widths: [10, 10] },
  ])('$natural in $total cells → $widths', ({ natural, minimum, free, total, widths }) => {
    expect(fitWidths(natural, minimum, free, total)).toEqual(widths);
  });
});

describe('keptColumns: the least important columns are left out until the rest fit', () => {
  it.each([
    // Everything fits: nothing is left out.
    { natural: [5, 10, 5], free: [false, true, false], priority: [undefined, 1, 2], total: 40, kept: [0, 1, 2] },
    // Free text shortened to 8 cells makes it fit: nothing is left out.
    { natural: [5, 30, 5], free: [false, true, false], priority: [undefined, 1, 2], total: 22, kept: [0, 1, 2] },
    // Lowest priority first; among equals the rightmost.
    { natural: [5, 10, 10, 10], free: [false, false, false, false], priority: [undefined, 2, 1, 1], total: 30, kept: [0, 1, 2] },
    { natural: [5, 10, 10, 10], free: [false, false, false, false], priority: [undefined, 2, 1, 1], total: 20, kept: [0, 1] },
    // A column without a priority stays, even when it alone is too wide.
    { natural: [30, 10], free: [false, false], priority: [undefined, 1], total: 20, kept: [0] },
  ])('$natural with priorities $priority in $total cells → $kept', ({ natural, free, priority, total, kept }) => {
    expect(keptColumns(natural, [4, 4, 4, 4].slice(0, natural.length), free, priority, total)).toEqual(kept);
  });

  it('a free column readable only at more cells has lower priorities left out before it is shortened under them', () => {
    // A 50-cell name, a 6-cell status, a 28-cell code (priority 2), a 40-cell body (priority 1), in 60 cells.
    const natural = [50, 6, 28, 40];
    const free = [true, false, false, true];
    const priority = [undefined, undefined, 2, 1];
    expect(keptColumns(natural, [4, 6, 4, 4], free, priority, 60)).toEqual([0, 1, 2, 3]);
    expect(keptColumns(natural, [4, 6, 4, 4], free, priority, 60, [40])).toEqual([0, 1]);
    expect(keptColumns(natural, [4, 6, 4, 4], free, priority, 80, [40])).toEqual([0, 1, 2]);
  });

  it('renderTable leaves the column out on a terminal, keeps it piped', () => {
    const columns: Column<{ code: string; note: string }>[] = [
      { header: 'code', value: (r) => r.code },
      { header: 'note', value: (r) => r.note, priority: 1 },
    ];
    const rows = [{ code: 'CR80', note: 'a long note' }];
    expect(renderTable(rows, columns, { terminal: true, style: plainStyle, width: 10 })).toBe('CODE\nCR80\n');
    expect(renderTable(rows, columns, { terminal: false, style: plainStyle, width: 10 })).toBe('CR80\ta long note\n');
  });
});

describe('terminalMeasure counts cells as a terminal draws them', () => {
  it.each([
    ['abc', 3],
    ['クレジット', 10],
    ['💎', 2],
    ['👨‍👩‍👧', 2],
    ['e\u0301', 1],
    ['\u001b[36mcyan\u001b[39m', 4],
  ])('%j is %i cells', (text, cells) => {
    expect(terminalMeasure.width(text)).toBe(cells);
  });

  it.each([
    ['BuilderBob', 8, 'Builder…'],
    ['BuilderBob', 10, 'BuilderBob'],
    ['クレジット', 5, 'クレ…'],
    ['クレジット', 6, 'クレ…'],
    ['クレジットのチャージ方法', 22, 'クレジットのチャージ…'],
    ['\u001b[36mクレジット\u001b[39m', 6, '\u001b[36mクレ\u001b[0m…'],
    ['a💎b💎', 4, 'a💎…'],
    ['\u001b[36mBuilderBob\u001b[39m', 5, '\u001b[36mBuil\u001b[0m…'],
  ])('truncate(%j, %i) → %j', (text, cells, cut) => {
    expect(terminalMeasure.truncate(text, cells)).toBe(cut);
    expect(terminalMeasure.width(cut)).toBeLessThanOrEqual(cells);
  });
});

describe('truncateMiddle keeps the start and the end of a path', () => {
  it.each([
    ['/api/v1/health', 20, '/api/v1/health'],
    ['/api/v1/me/orders/INV20260302000003', 20, '/api/v1/m…0302000003'],
    ['/articles/クレジット/guide', 12, '/arti…/guide'],
    ['/articles/クレジット', 12, '/arti…ジット'],
  ])('truncateMiddle(%j, %i) → %j', (text, cells, cut) => {
    expect(truncateMiddle(text, cells)).toBe(cut);
    expect(terminalMeasure.width(cut)).toBeLessThanOrEqual(cells);
  });
});

describe('renderFields on a terminal of a known width', () => {
  const view = (width: number | undefined) => ({ terminal: true, style: plainStyle, width, measure: terminalMeasure });

  it('a value too long wraps at spaces under its column; a URL is never cut', () => {
    const pairs: [string, string][] = [
      ['rate limits', '✓ no X-RateLimit-* headers; the client keeps to the published limits'],
      ['link', 'http://sandbox.localhost/articles/how-to-top-up-credits-for-every-platform'],
    ];
    expect(renderFields(pairs, view(40))).toBe(
      [
        'rate limits  ✓ no X-RateLimit-* headers;',
        '             the client keeps to the',
        '             published limits',
        'link         http://sandbox.localhost/articles/how-to-top-up-credits-for-every-platform',
        '',
      ].join('\n'),
    );
    expect(renderFields(pairs, view(undefined))).toBe(`rate limits  ${pairs[0]![1]}\nlink         ${pairs[1]![1]}\n`);
  });

  it('wide characters are measured in cells, and a line of CJK writing breaks between its characters', () => {
    const title = 'クレジットのチャージ方法：完全ガイド';
    const pairs: [string, string][] = [
      ['title', title],
      ['mixed', 'Cara top up クレジットのチャージ方法 https://example.test/ja/guide'],
    ];
    const out = renderFields(pairs, view(30));
    expect(out).toBe(
      [
        'title  クレジットのチャージ方',
        '       法：完全ガイド',
        'mixed  Cara top up クレジット',
        '       のチャージ方法',
        '       https://example.test/ja/guide',
        '',
      ].join('\n'),
    );
    // Every line fits but the URL's, which is never cut, and nothing is lost: the lines joined are the values.
    for (const line of out.split('\n').filter((each) => !each.includes('https')))
      expect(terminalMeasure.width(line)).toBeLessThanOrEqual(30);
    expect(out.replace(/\n {7}/g, '')).toContain(title);
  });

  it('a command goes below its key, continued with \\, never split inside a quoted word', () => {
    const command = "TOPUP_CONFIG_DIR='/tmp/my config' TOPUP_TOKEN=topup_test_demo_4eC39HqLyjWDarjtT1zdp7dc topup orders list";
    expect(renderFields([['another shell', command, { command: true }]], view(60))).toBe(
      [
        'another shell',
        "  TOPUP_CONFIG_DIR='/tmp/my config' \\",
        '  TOPUP_TOKEN=topup_test_demo_4eC39HqLyjWDarjtT1zdp7dc \\',
        '  topup orders list',
        '',
      ].join('\n'),
    );
    expect(renderFields([['shell', command, { command: true }]], view(120))).toBe(`shell  ${command}\n`);
  });

  it('piped: `key: value`, whole, whatever the width', () => {
    expect(
      renderFields(
        [
          ['link', 'a b c d e f'],
          ['shell', 'x y z', { command: true }],
        ],
        { ...view(5), terminal: false },
      ),
    ).toBe('link: a b c d e f\nshell: x y z\n');
  });
});

describe('renderTable', () => {
  const columns: Column<{ code: string; name: string }>[] = [
    { header: 'code', value: (r) => r.code },
    { header: 'name', value: (r) => r.name, free: true },
  ];
  const rows = [{ code: 'CR80', name: '80 クレジット' }];

  it('a terminal of a given width: the free column is cut to fit, aligned by cells', () => {
    expect(renderTable(rows, columns, { terminal: true, style: plainStyle, width: 12, measure: terminalMeasure })).toBe(
      'CODE  NAME\nCR80  80 ク…\n',
    );
  });

  it('piped: whole values, whatever the width', () => {
    expect(renderTable(rows, columns, { terminal: false, style: plainStyle, width: 12, measure: terminalMeasure })).toBe(
      'CR80\t80 クレジット\n',
    );
  });
});

/**
 * Every table command at 60, 80 and 120 columns (issue 24): no line wider than the terminal, measured in the cells a
 * terminal draws; and piped, exactly the rows it prints at any width (nothing cut, nothing dropped).
 */
describe('every table fits the terminal', () => {
  let h: Harness;
  useHarness(
    (created) => {
      h = created;
    },
    { seed: seedRichHistory },
  );

  const widest = (text: string) => Math.max(...text.split('\n').map((line) => terminalMeasure.width(line)));
  const tables: { name: string; args: string[]; account?: 'rich' }[] = [
    { name: 'articles list', args: ['articles', 'list', '--page', '2'] },
    { name: 'orders list', args: ['orders', 'list'] },
    { name: 'deposits list', args: ['deposits', 'list'] },
    { name: 'transactions', args: ['transactions'] },
    { name: 'packages', args: ['packages'] },
    { name: 'payment-methods', args: ['payment-methods'] },
    { name: 'dashboard', args: ['dashboard'] },
  ];

  describe.each(tables)('$name', ({ args }) => {
    it.each([60, 80, 120])('at %i columns', async (columns) => {
      const result = await h.run([...args, '--no-color'], { tty: true, columns });
      expect(result.code, result.err).toBe(0);
      expect(result.out.split('\n').length).toBeGreaterThan(2);
      expect(widest(result.out), result.out).toBeLessThanOrEqual(columns);
    });

    it('piped: the same rows at 40 and 400 columns', async () => {
      const narrow = await h.run(args, { columns: 40 });
      const wide = await h.run(args, { columns: 400 });
      expect(narrow.code, narrow.err).toBe(0);
      expect(narrow.out).toBe(wide.out);
    });
  });
});

describe('`topup help formatting` lists the columns in the order they are left out', () => {
  const view = { terminal: true, style: plainStyle };
  const dropOrder = (columns: readonly Column<never>[]) =>
    columns
      .filter((c) => c.priority !== undefined)
      .sort((a, b) => a.priority! - b.priority!)
      .map((c) => c.header)
      .join(', ');

  it.each([
    ['articles list', articleColumns(view)],
    ['orders list', orderSummaryColumns(view)],
    ['deposits list', depositColumns(view)],
    ['transactions', transactionColumns(view)],
  ] as [string, Column<never>[]][])('%s', async (name, columns) => {
    const config = tempConfigDir();
    try {
      const { out } = await runCli(config.dir, ['help', 'formatting']);
      expect(out).toMatch(new RegExp(`\\n  ${name} +${dropOrder(columns)}(\\n| )`));
    } finally {
      config.cleanup();
    }
  });
});

/** The sandbox's own tables, on the embedded sandbox (they print its public test tokens: no token check here). */
describe('mock tables fit the terminal', () => {
  let config: { dir: string; cleanup: () => void };
  beforeEach(() => {
    config = tempConfigDir();
  });
  afterEach(() => config.cleanup());
  const widest = (text: string) => Math.max(...text.split('\n').map((line) => terminalMeasure.width(line)));

  describe.each([{ name: 'mock fixtures', setup: [] as string[][], args: ['mock', 'fixtures'] }])('$name', ({ setup, args }) => {
    it.each([60, 80, 120])('at %i columns', async (columns) => {
      for (const step of setup) expect((await runCli(config.dir, step)).code).toBe(0);
      const result = await runCli(config.dir, [...args, '--no-color'], { tty: true, columns });
      expect(result.code, result.err).toBe(0);
      expect(widest(result.out), result.out).toBeLessThanOrEqual(columns);
    });

    it('piped: the same rows at 40 and 400 columns', async () => {
      for (const step of setup) expect((await runCli(config.dir, step)).code).toBe(0);
      const narrow = await runCli(config.dir, args, { columns: 40 });
      expect(narrow.code, narrow.err).toBe(0);
      expect(narrow.out).toBe((await runCli(config.dir, args, { columns: 400 })).out);
    });
  });
});
