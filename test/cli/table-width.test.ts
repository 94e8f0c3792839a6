import { describe, expect, it } from 'vitest';
import { plainStyle } from '../../src/cli/io/style.js';
import { fitWidths, renderTable, type Column } from '../../src/cli/io/table.js';
import { terminalMeasure } from '../../src/cli/io/text-width.js';

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
    ['a💎b💎', 4, 'a💎…'],
    ['\u001b[36mBuilderBob\u001b[39m', 5, '\u001b[36mBuil\u001b[0m…'],
  ])('truncate(%j, %i) → %j', (text, cells, cut) => {
    expect(terminalMeasure.truncate(text, cells)).toBe(cut);
    expect(terminalMeasure.width(cut)).toBeLessThanOrEqual(cells);
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
