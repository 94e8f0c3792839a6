/**
 * The sandbox's pages (the dashboard, the hosted invoice page) run only the script and style they were served with:
 * their CSP allows each inline script and style sheet by the hash of its exact text, never by `'unsafe-inline'`, so
 * markup that got into a page (an invoice code, a username) could not run as script even if escaping ever failed.
 * That the hashes match what the browser hashes is proven by test/browser: a script that did not match would not run.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../mocks/assembly/sandbox.js';

interface Page {
  status: number;
  csp: Map<string, string[]>;
  html: string;
}

async function open(sandbox: Sandbox, path: string): Promise<Page> {
  const answer = await sandbox.fetch(`${sandbox.baseUrl}${path}`);
  const header = answer.headers.get('content-security-policy') ?? '';
  const csp = new Map(
    header
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter(([name]) => name !== '')
      .map(([name, ...sources]) => [name!, sources]),
  );
  return { status: answer.status, csp, html: await answer.text() };
}

/** The text of every `<tag>` element of the page, as the browser hashes it. */
const inline = (html: string, tag: 'script' | 'style'): string[] =>
  [...html.matchAll(new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, 'g'))].map((match) => match[1]!);

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

async function pages(): Promise<[string, Page][]> {
  const sandbox = await createSandbox();
  const code = (await sandbox.control.deposit({ amount: 50_000 })).invoice_code;
  return Promise.all(
    ['/__sandbox/', `/user/invoice/${code}`, '/user/invoice/INV-NOT-HERE'].map(
      async (path) => [path, await open(sandbox, path)] as [string, Page],
    ),
  );
}

describe('the pages allow their own inline script and style by hash, and nothing else', () => {
  it("no 'unsafe-inline' (or eval, or another origin) for script or style", async () => {
    for (const [path, page] of await pages()) {
      expect(page.csp.get('default-src'), path).toEqual(["'none'"]);
      expect(page.csp.get('frame-ancestors'), path).toEqual(["'none'"]);
      expect(page.csp.get('connect-src'), path).toEqual(["'self'"]);
      for (const directive of ['script-src', 'style-src']) {
        const sources = page.csp.get(directive);
        expect(sources, `${path} ${directive}`).toBeDefined();
        for (const source of sources!) expect(source, `${path} ${directive}`).toMatch(/^'sha256-[A-Za-z0-9+/]{43}='$|^'none'$/);
      }
    }
  });

  it('the hash in the header is the hash of the script and of the style sheet served, one style sheet and the scripts in order', async () => {
    for (const [path, page] of await pages()) {
      const scripts = inline(page.html, 'script');
      const styles = inline(page.html, 'style');
      expect(styles, path).toHaveLength(1);
      expect(page.csp.get('style-src'), path).toEqual(styles.map(hashOf));
      expect(page.csp.get('script-src'), path).toEqual(scripts.length === 0 ? ["'none'"] : scripts.map(hashOf));
    }
    const [dashboard, invoice, missing] = (await pages()).map(([, page]) => page);
    // The control-secret script (window.topupControl) first, then the page's own.
    for (const page of [dashboard!, invoice!]) {
      const scripts = inline(page.html, 'script');
      expect(scripts).toHaveLength(2);
      expect(scripts[0]).toContain('window.topupControl =');
    }
    // The page of an invoice that is not there has nothing to run.
    expect(missing!.status).toBe(404);
    expect(inline(missing!.html, 'script')).toEqual([]);
  });

  it('no inline event handler, style attribute or javascript: URL, which a hash cannot allow', async () => {
    for (const [path, page] of await pages()) {
      const tags = page.html.replace(/<(script|style)>[\s\S]*?<\/\1>/g, '');
      expect(tags, path).not.toMatch(/<[^>]*\son[a-z]+\s*=/i);
      expect(tags, path).not.toMatch(/<[^>]*\sstyle\s*=/i);
      expect(tags, path).not.toMatch(/javascript:/i);
    }
  });
});
