import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

/** The system's Chromium (Playwright's own browser download cannot work on these machines); TOPUP_CHROMIUM points elsewhere. */
export const CHROMIUM = process.env.TOPUP_CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser suite cannot run here, or undefined when it can. */
export const browserMissing: string | undefined = existsSync(CHROMIUM)
  ? undefined
  : `no Chromium at ${CHROMIUM}: install it (apt-get install -y chromium) or set TOPUP_CHROMIUM to a Chromium binary`;

if (browserMissing !== undefined) console.warn(`The browser suite (test/browser) was skipped: ${browserMissing}.`);

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  // As root (CI containers) Chromium refuses to start inside its own sandbox.
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  return chromium.launch({ executablePath: CHROMIUM, args });
}

/** One Chromium for the tests of the enclosing describe: started before them, closed after. */
export function useChromium(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (browser === undefined) throw new Error('Chromium did not start');
    return browser;
  };
}
