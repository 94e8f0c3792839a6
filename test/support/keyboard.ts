import type { Page } from 'playwright-core';

/**
 * What has the focus, named as a person would point at it: its id, else its accessible label, else (a row of the
 * request log) its entry id, else its text. "body" when nothing has it.
 */
export function focusedName(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!(el instanceof HTMLElement) || el === document.body) return 'body';
    return describe(el);
    function describe(e: HTMLElement): string {
      if (e.id) return `#${e.id}`;
      const label = e.getAttribute('aria-label');
      if (label) return label;
      if (e.dataset.id) return `log row ${e.dataset.id}`;
      return `${e.tagName.toLowerCase()} "${(e.textContent ?? '').trim().slice(0, 40)}"`;
    }
  });
}

/**
 * Everything the keyboard should reach, in the order of the document (which is the order on screen): links, buttons,
 * fields, summaries and anything with tabindex 0, leaving out what is disabled or not shown (a closed <details>'s
 * content is not). Named as focusedName names.
 */
export function focusableNames(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, summary, [tabindex]'))
      .filter((e) => e.tabIndex >= 0 && !(e as HTMLButtonElement).disabled && e.checkVisibility())
      .map((e) => {
        if (e.id) return `#${e.id}`;
        const label = e.getAttribute('aria-label');
        if (label) return label;
        if (e.dataset.id) return `log row ${e.dataset.id}`;
        return `${e.tagName.toLowerCase()} "${(e.textContent ?? '').trim().slice(0, 40)}"`;
      }),
  );
}

/** Presses Tab (or Shift+Tab) until the focus leaves the page or comes round again; the names it passed, in order. */
export async function tabThrough(page: Page, key: 'Tab' | 'Shift+Tab' = 'Tab', limit = 400): Promise<string[]> {
  const passed: string[] = [];
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press(key);
    const name = await focusedName(page);
    if (name === 'body' || passed.includes(name)) return passed;
    passed.push(name);
  }
  throw new Error(`still tabbing after ${limit} presses: ${passed.slice(-5).join(', ')}`);
}

/** Presses Tab until the focus is on the element called `name` (focusedName); fails when the page has no such stop. */
export async function tabTo(page: Page, name: string, limit = 400): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if ((await focusedName(page)) === name) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${name}`);
}

/**
 * How the focused element shows that it has the focus: it matches :focus-visible and its computed style draws an
 * outline at least 2 px wide, or a box shadow. A focus that only a mouse user's eye could guess at fails.
 */
export function focusIndicator(
  page: Page,
): Promise<{ name: string; focusVisible: boolean; outline: string; boxShadow: string; shown: boolean }> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const style = getComputedStyle(el);
    const outline = `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}`;
    const outlined = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
    const shadowed = style.boxShadow !== 'none';
    return {
      name: el.id || el.getAttribute('aria-label') || el.tagName.toLowerCase(),
      focusVisible: el.matches(':focus-visible'),
      outline,
      boxShadow: style.boxShadow,
      shown: el.matches(':focus-visible') && (outlined || shadowed),
    };
  });
}
