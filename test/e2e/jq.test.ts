import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../support/fake-io.js';
import { baseEnv, ensureBuilt, ROOT, topup } from './built-cli.js';

/* --jq in real processes of the built binary: jq (jq-web's WebAssembly) loads from node_modules by the lazy chunk in dist. */
let config: { dir: string; cleanup: () => void };
let env: Record<string, string>;

beforeAll(() => {
  ensureBuilt();
  config = tempConfigDir();
  env = baseEnv(config.dir);
}, 120_000);

afterAll(() => config?.cleanup());

describe('--jq in the built topup', () => {
  it('filters the offline sandbox’s packages', async () => {
    const run = await topup(['--mock', 'packages', '--jq', '.packages[] | select(.price < 50000) | "\\(.code) \\(.price)"'], { env });
    expect(run).toEqual({
      code: 0,
      stdout: 'CR80 10000\nCR400 48000\n',
      stderr: 'Using the embedded offline sandbox (demo sandbox token). Log in to a real server with `topup auth login`.\n',
    });
  });

  it('a bad expression → exit 2, one JSON line naming jq’s reason, no stack trace', async () => {
    const run = await topup(['--mock', 'packages', '--jq', '.packages['], { env });
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr:
        '{"success":false,"message":"Invalid --jq expression: syntax error, unexpected end of file at line 1.","error":{"code":"USAGE","kind":"usage"}}\n',
    });
  });

  it('topup api: -f/-F make a POST, and --jq filters the envelope', async () => {
    const created = await topup(
      [
        '--mock',
        'api',
        'me/orders',
        '-f',
        'platform_username=BuilderBob',
        '-F',
        'place_id=5001',
        '-F',
        'platform_pass_id=9001',
        '--jq',
        '.data.invoice.payment_status',
      ],
      { env },
    );
    expect(created).toMatchObject({ code: 0, stdout: 'pending\n' });
    const listed = await topup(['--mock', 'api', 'me/orders', '--paginate', '--jq', '.data.orders | length'], { env });
    expect(listed).toMatchObject({ code: 0, stdout: '1\n' });
  });

  it('the start-up bundle does not hold jq: only the lazy chunk loads it', () => {
    const eager = readFileSync(join(ROOT, 'dist', 'cli', 'main.cjs'), 'utf8');
    expect(eager).not.toContain('jq-web');
    expect(readFileSync(join(ROOT, 'dist', 'cli', 'lazy', 'src', 'cli', 'io', 'jq.cjs'), 'utf8')).toContain('jq-web');
  });
});
