import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpSandbox, type HttpSandbox } from '../../mocks/adapters/http.js';
import { createSandbox } from '../../mocks/assembly/sandbox.js';

const run = promisify(execFile);
const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The fenced block that follows `marker` in the README, and the one after it. */
function blocksAfter(marker: string): [string, string] {
  const rest = README.slice(README.indexOf(marker));
  const blocks = [...rest.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1]!);
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

describe('the README: a bot in any language', () => {
  it.skipIf(!haveTools)('its curl session runs against topup mock serve and prints what the README says', async () => {
    const [session, printed] = blocksAfter('<!-- the session below is run by test/examples/readme.test.ts -->');
    expect(session).toMatch(/^BASE=http:\/\/127\.0\.0\.1:4010\n/);
    served = await startHttpSandbox(await createSandbox(), { port: 0 });
    const script = session.replace(/^BASE=\S+/, `BASE=${served.url}`);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { timeout: 20_000 });
    const codes = (text: string) => text.replace(/INV\d{14}/g, 'INV…');
    expect(codes(stdout)).toBe(codes(printed));
  });
});

describe('the README: testing your code against the sandbox', () => {
  it('shows the whole example suite exactly as test/examples/my-bot.test.ts has it (which npm test runs)', () => {
    const [shown] = blocksAfter('<!-- the block below is test/examples/my-bot.test.ts -->');
    expect(shown).toBe(readFileSync(new URL('./my-bot.test.ts', import.meta.url), 'utf8'));
  });
});
