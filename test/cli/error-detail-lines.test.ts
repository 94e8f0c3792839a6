import { describe, expect, it } from 'vitest';
import { errorDetailLines } from '../../src/cli/error-hints.js';

// What follows an error's sentence on stderr (src/cli/main.ts reportError): each from the error's own details, which
// come from a server's answer, so each is checked as text from a stranger too.
describe('the lines after an error', () => {
  it('names the fields at fault that the sentence does not', () => {
    expect(errorDetailLines({ code: 'VALIDATION_FAILED', fields: ['place_id', 'platform_pass_id'] }, 'Validation failed.')).toEqual([
      'Fields at fault: place_id, platform_pass_id.',
    ]);
    expect(errorDetailLines({ fields: ['place_id', 'platform_pass_id'] }, 'Validation failed: invalid place_id.')).toEqual([
      'Field at fault: platform_pass_id.',
    ]);
  });

  it('takes a field as named only as a word of its own', () => {
    expect(errorDetailLines({ fields: ['id'] }, 'Validation failed.')).toEqual(['Field at fault: id.']);
    expect(errorDetailLines({ fields: ['page'] }, 'Validation failed: invalid per_page.')).toEqual(['Field at fault: page.']);
    expect(errorDetailLines({ fields: ['amount', 'type'] }, 'Validation failed: invalid total_amount, order_type.')).toEqual([
      'Fields at fault: amount, type.',
    ]);
    expect(errorDetailLines({ fields: ['page', 'per_page'] }, 'Validation failed: invalid page (per_page too).')).toEqual([]);
  });

  it('adds nothing when the sentence names every field, or there are none', () => {
    expect(errorDetailLines({ fields: ['place_id'] }, 'Validation failed: invalid place_id.')).toEqual([]);
    expect(errorDetailLines({ fields: [] }, 'Validation failed.')).toEqual([]);
    expect(errorDetailLines({}, 'Not found.')).toEqual([]);
  });

  it("takes a server's fields as a stranger's text: control characters escaped, names and their number bounded", () => {
    const [line] = errorDetailLines({ fields: ['a\u001b[31mred', 'x'.repeat(500), 7, null] }, 'Validation failed.');
    expect(line).not.toContain('\u001b');
    expect(line).toMatch(/^Fields at fault: a.*red, x{64}….$/);
    // Cut by characters, not UTF-16 units: no half of a pair is left.
    const [emoji] = errorDetailLines({ fields: ['\u{1F600}'.repeat(100)] }, 'Validation failed.');
    expect(emoji).toBe(`Field at fault: ${'\u{1F600}'.repeat(64)}….`);
    const many = Array.from({ length: 25 }, (_, i) => `field_${i}`);
    expect(errorDetailLines({ fields: many }, 'Validation failed.')).toEqual([
      `Fields at fault: ${many.slice(0, 10).join(', ')} and 15 more.`,
    ]);
    expect(errorDetailLines({ fields: 'place_id' }, 'Validation failed.')).toEqual([]);
  });

  it('says how long the server asked to wait, in whole seconds up', () => {
    const said = (retryAfter: unknown) => errorDetailLines({ retryAfter }, 'Too many requests; retry shortly.');
    expect(said(30)).toEqual(['The server asked to wait 30 seconds before the next request (Retry-After).']);
    expect(said(0.2)).toEqual(['The server asked to wait 1 second before the next request (Retry-After).']);
    expect(said(0)).toEqual(['The server asked to wait 0 seconds before the next request (Retry-After).']);
    for (const nonsense of [-1, Number.NaN, Infinity, 1e22, '30', undefined]) expect(said(nonsense)).toEqual([]);
  });

  it("keeps a code's hint first", () => {
    expect(errorDetailLines({ code: 'CHAT_LINK_REQUIRED', retryAfter: 5 }, 'A chat link is required.')).toEqual([
      expect.stringContaining('--chat-user-id'),
      'The server asked to wait 5 seconds before the next request (Retry-After).',
    ]);
  });
});
