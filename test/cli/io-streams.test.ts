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
