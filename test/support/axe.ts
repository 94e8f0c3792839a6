import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** The WCAG 2.0 and 2.1 rules at levels A and AA: what issue 24 asks both pages to pass with zero violations. */
export const WCAG21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] as const;

/** One rule a page breaks, with where: enough to find and fix it from the test's output alone. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string; summary: string }[];
}

let source: string | undefined;

/**
 * Runs axe-core in the page, as it is served. The pages' CSP allows only their own scripts (by hash), so a
 * `<script>` tag added to the page (page.addScriptTag) would be refused; `bypassCSP` would lift the CSP for the whole
 * context, and the page would no longer be the one users get. page.evaluate runs through the DevTools protocol,
 * which the page's CSP does not govern: axe runs beside the page's own scripts, and the CSP stays on.
 */
export async function axeViolations(page: Page, tags: readonly string[] = WCAG21_AA): Promise<AxeViolation[]> {
  source ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(source);
  return page.evaluate(
    async (values: string[]) => {
      const axe = (window as unknown as { axe: typeof import('axe-core') }).axe;
      const result = await axe.run(document, { runOnly: { type: 'tag', values }, resultTypes: ['violations'] });
      return result.violations.map((v) => ({
        id: v.id,
        impact: v.impact ?? null,
        help: v.help,
        nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: (n.failureSummary ?? '').replace(/\s+/g, ' ').trim() })),
      }));
    },
    [...tags],
  );
}

/** Violations as lines a person reads in a failed test: rule, impact, what it asks, and each element with why. */
export function formatViolations(state: string, violations: readonly AxeViolation[]): string {
  if (violations.length === 0) return `${state}: no violations`;
  return [
    `${state}: ${violations.length} axe-core violation(s)`,
    ...violations.flatMap((v) => [
      `- ${v.id} (${v.impact ?? 'no impact given'}): ${v.help}`,
      ...v.nodes.map((n) => `    at ${n.target}: ${n.summary}`),
    ]),
  ].join('\n');
}

/** Asserts that the page, in its current state, breaks none of the WCAG 2.1 AA rules; the failure lists each one. */
export async function expectNoAxeViolations(page: Page, state: string): Promise<void> {
  expect(formatViolations(state, await axeViolations(page))).toBe(`${state}: no violations`);
}

/** The same check with the browser asking for a light, then a dark page: the pages follow prefers-color-scheme. */
export async function expectNoAxeViolationsInBothSchemes(page: Page, state: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await expectNoAxeViolations(page, `${state} (${colorScheme})`);
  }
  await page.emulateMedia({ colorScheme: null });
}
