import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The committed openapi.json through two linters people run on OpenAPI documents: no errors, no warnings. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);
const run = (name: string, args: string[]) => spawnSync(bin(name), args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });

describe('openapi.json lints clean', () => {
  it('@redocly/cli lint (recommended rules)', () => {
    const result = run('redocly', ['lint', 'openapi.json', '--format=json']);
    const report = JSON.parse(result.stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string }[];
    };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('Spectral with its OpenAPI ruleset (.spectral.yaml)', () => {
    const result = run('spectral', ['lint', 'openapi.json', '--ruleset', '.spectral.yaml', '-f', 'json', '--quiet']);
    const findings = JSON.parse(result.stdout || '[]') as { code: string; message: string; path: string[] }[];
    expect(findings.map((f) => `${f.code}: ${f.message} (${f.path.join('.')})`)).toEqual([]);
  });

  it('info.license matches the LICENSE the package ships', () => {
    const doc = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')) as { info: { license: { identifier: string } } };
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license: string };
    expect(doc.info.license.identifier).toBe(pkg.license);
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
  });
});
