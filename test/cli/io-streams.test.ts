import { describe, expect, it } from 'vitest';
import { IOStreams } from '../../src/cli/io/io-streams.js';
import { fakeIO } from '../support/fake-io.js';

function streams(
  options: { tty?: boolean; stderrTTY?: boolean; json?: boolean; color?: boolean; input?: boolean; env?: Record<string, string> } = {},
) {
  const io = fakeIO({
    tty: options.tty ?? false,
    ...(options.stderrTTY === undefined ? {} : { stderrTTY: options.stderrTTY }),
    env: options.env ?? {},
  });
  const ios = new IOStreams(io);
  ios.setMode({ json: options.json ?? false, color: options.color ?? true, input: options.input ?? true });
  return { io, ios };
}

/** Every kind of output once. */
function speak(ios: IOStreams): void {
  ios.out('data\n');
  ios.warn('warning');
  ios.notice('hint');
  ios.success('done');
  ios.progress('waiting').stop('waited');
}

describe('IOStreams: what each kind of output does, on a terminal and off it', () => {
  it.each([
    { name: 'piped', options: {}, err: 'warning\nhint\nwaited\n' },
    { name: 'stderr watched by a person, stdout piped', options: { stderrTTY: true }, err: 'warning\nhint\n✓ done\nwaited\n' },
    { name: 'a terminal', options: { tty: true }, err: 'warning\nhint\n✓ done\nwaited\n' },
    { name: 'piped, --json', options: { json: true }, err: 'warning\nwaited\n' },
    { name: 'a terminal, --json', options: { tty: true, json: true }, err: 'warning\nwaited\n' },
  ])('$name', ({ options, err }) => {
    const { io, ios } = streams(options);
    speak(ios);
    expect(io.out()).toBe('data\n');
    // The spinner's frames are drawn with \r and an erase; only what stays on screen is compared.
    // eslint-disable-next-line no-control-regex -- the spinner's frames are control sequences
    expect(io.err().replace(/\r\u001b\[K(?:[\u2800-\u28ff] [^\r\n]*)?/g, '')).toBe(err);
  });

  it('writeJson writes the data as JSON on stdout, escaping what a terminal would act on', async () => {
    const { io, ios } = streams({ tty: true });
    await ios.writeJson({ name: 'a\u001b[31mb' });
    expect(io.out()).toBe('{\n  "name": "a\\u001b[31mb"\n}\n');
  });

  it('prompts only when stdin and stdout are terminals and --no-input is not set', () => {
    expect(streams({ tty: true }).ios.canPrompt()).toBe(true);
    expect(streams({ tty: true, input: false }).ios.canPrompt()).toBe(false);
    expect(streams({ stderrTTY: true }).ios.canPrompt()).toBe(false);
  });

  it('colour only on a terminal, without NO_COLOR or --no-color', async () => {
    expect(streams({ tty: true }).ios.colorEnabled).toBe(true);
    expect(streams({ tty: true, env: { NO_COLOR: '1' } }).ios.colorEnabled).toBe(false);
    expect(streams({ tty: true, color: false }).ios.colorEnabled).toBe(false);
    expect(streams({ stderrTTY: true }).ios.colorEnabled).toBe(false);
    const { ios } = streams({ tty: true });
    await ios.loadStyle();
    expect(ios.style.green('x')).toBe('\u001b[32mx\u001b[39m');
    const plain = streams({ tty: true, env: { NO_COLOR: '1' } }).ios;
    await plain.loadStyle();
    expect(plain.style.green('x')).toBe('x');
  });
});

describe('colour is decided for each stream by that stream', () => {
  it.each([
    { name: 'both terminals', options: { tty: true }, out: true, err: true },
    { name: 'stdout a terminal, stderr to a file', options: { tty: true, stderrTTY: false }, out: true, err: false },
    { name: 'stdout piped, stderr a terminal', options: { stderrTTY: true }, out: false, err: true },
    { name: 'both piped, FORCE_COLOR', options: { env: { FORCE_COLOR: '1' } }, out: true, err: true },
    { name: 'both terminals, NO_COLOR', options: { tty: true, env: { NO_COLOR: '1' } }, out: false, err: false },
    { name: 'both terminals, --no-color', options: { tty: true, color: false }, out: false, err: false },
    { name: 'both terminals, TERM=dumb', options: { tty: true, env: { TERM: 'dumb' } }, out: false, err: false },
  ])('$name', async ({ options, out, err }) => {
    const { io, ios } = streams(options);
    expect([ios.colorEnabled, ios.stderrColorEnabled]).toEqual([out, err]);
    await ios.loadStyle();
    expect(ios.style.green('x') !== 'x').toBe(out);
    expect(ios.errStyle.green('x') !== 'x').toBe(err);
    ios.success('done');
    if (ios.stderrTerminal) expect(io.err().includes('\u001b[32m✓')).toBe(err);
  });
});

describe('the terminal size', () => {
  const sized = (columns: number | undefined, rows: number | undefined, env: Record<string, string>, tty = true) =>
    new IOStreams(fakeIO({ tty, columns, rows, env }));

  it('is what the terminal says; LINES and COLUMNS do not override it', () => {
    const ios = sized(120, 40, { LINES: '10', COLUMNS: '20' });
    expect([ios.columns, ios.rows]).toEqual([120, 40]);
  });

  // A pseudo-terminal nobody sized says 0 by 0: the pager then opened for a list of six lines.
  it('a terminal that says 0 by 0 is taken at LINES and COLUMNS, as less takes it', () => {
    expect([sized(0, 0, { LINES: '50', COLUMNS: '90' }).columns, sized(0, 0, { LINES: '50', COLUMNS: '90' }).rows]).toEqual([90, 50]);
    expect(sized(0, undefined, { LINES: '50' }).rows).toBe(50);
  });

  it.each(['', '0', '-5', 'abc', '1e3', '999999'])('LINES=%j is no size', (value) => {
    expect(sized(80, 0, { LINES: value }).rows).toBe(0);
  });

  it('is nothing off a terminal', () => {
    const ios = sized(80, 24, { LINES: '50', COLUMNS: '90' }, false);
    expect([ios.columns, ios.rows]).toEqual([undefined, undefined]);
  });
});
