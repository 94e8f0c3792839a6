import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox } from '../../mocks/assembly/sandbox.js';

const run = promisify(execFile);
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The fenced block that follows `marker` in a guide, and the one after it; throws when the marker is gone. */
function blocksAfter(guide: string, marker: string): [string, string] {
  const text = read(guide);
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${guide} no longer has the marker ${marker}`);
  const blocks = [...text.slice(at).matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return [blocks[0]!, blocks[1]!];
}

const haveTools = await run('bash', ['-c', 'command -v curl && command -v python3']).then(
  () => true,
  () => false,
);

let served: HttpSandbox | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe('docs/testing-your-bot.md: a bot in any language', () => {
  it.skipIf(!haveTools)('its curl session runs against topup mock serve and prints what the guide says', async () => {
    const [session, printed] = blocksAfter('docs/testing-your-bot.md', '<!-- the session below is run by test/docs/examples.test.ts -->');
    expect(session).toMatch(/^BASE=http:\/\/127\.0\.0\.1:4010\n/);
    served = await startHttpSandbox(await createSandbox(), { port: 0 });
    const script = session.replace(/^BASE=\S+/, `BASE=${served.url}`);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { timeout: 20_000 });
    const codes = (text: string) => text.replace(/INV\d{14}/g, 'INV…');
    expect(codes(stdout)).toBe(codes(printed));
  });
});

describe('docs/testing-your-bot.md: testing your code against the sandbox', () => {
  it('shows the whole example suite exactly as test/examples/my-bot.test.ts has it (which npm test runs)', () => {
    const [shown] = blocksAfter('docs/testing-your-bot.md', '<!-- the block below is test/examples/my-bot.test.ts -->');
    expect(shown).toBe(read('test/examples/my-bot.test.ts'));
  });
});

describe('docs/testing-your-bot.md: the msw example', () => {
  it('shows both of its blocks word for word as test/examples/msw-example.test.ts runs them', () => {
    const [handlers, queries] = blocksAfter('docs/testing-your-bot.md', '## In your own tests (msw)');
    const runs = read('test/examples/msw-example.test.ts');
    expect(handlers).toContain('createHandlers(sandbox');
    expect(runs).toContain(handlers);
    expect(runs).toContain(queries);
  });
});

describe('docs/library.md: reading the tolerant types', () => {
  it('shows the example word for word as test/examples/reading-answers.test.ts runs it', () => {
    const [shown] = blocksAfter('docs/library.md', '<!-- the block below is in test/examples/reading-answers.test.ts -->');
    expect(shown.length).toBeGreaterThan(200);
    expect(read('test/examples/reading-answers.test.ts')).toContain(shown);
  });
});
