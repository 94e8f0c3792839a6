import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { formatMark, markRunning, parseMark, systemProbe, type ProcessProbe } from '../../src/process-mark.js';

const BOOT = '3bae302a-c4d2-4ace-990b-73810d3fcea5';
const OTHER_BOOT = '11111111-2222-3333-4444-555555555555';

/** A system where pids 10 and 11 run, 10 started at tick 500 and 11 at tick 600; this process is 7, started at 400. */
function probe(own: { pid: number; start?: string } = { pid: 7, start: `${BOOT}:99:400` }): ProcessProbe {
  const starts = new Map([
    [7, '400'],
    [10, '500'],
    [11, '600'],
  ]);
  return {
    own,
    alive: (pid) => starts.has(pid),
    startOf: (pid) => (starts.has(pid) ? `${BOOT}:99:${starts.get(pid)}` : undefined),
  };
}

describe('a lock names its owner by pid and start', () => {
  it('writes and reads back a mark, with or without a start; anything else names no process', () => {
    expect(parseMark(formatMark({ pid: 42 }))).toEqual({ pid: 42 });
    expect(parseMark(formatMark({ pid: 42, start: `${BOOT}:4026531836:2114917` }))).toEqual({
      pid: 42,
      start: `${BOOT}:4026531836:2114917`,
    });
    expect(parseMark(' 42\n')).toEqual({ pid: 42 });
    for (const junk of ['', 'x', '0', '-3', '42 nonsense', '42 a:b:c', `42 ${BOOT}:1:2 more`, '1.5', '99999999999'])
      expect(parseMark(junk), junk).toBeUndefined();
  });

  it('a mark of this boot and namespace runs only while its pid has the same start', () => {
    expect(markRunning({ pid: 10, start: `${BOOT}:99:500` }, probe())).toBe(true);
    // The pid was given to another process since: the owner is gone.
    expect(markRunning({ pid: 10, start: `${BOOT}:99:499` }, probe())).toBe(false);
    expect(markRunning({ pid: 12, start: `${BOOT}:99:500` }, probe())).toBe(false);
  });

  it("this process's own pid with another start is a predecessor that died (a restarted container)", () => {
    expect(markRunning({ pid: 7, start: `${BOOT}:99:399` }, probe())).toBe(false);
    expect(markRunning({ pid: 7, start: `${BOOT}:99:400` }, probe())).toBe(true);
  });

  it('a mark from another boot in this namespace never runs, whatever its pid', () => {
    expect(markRunning({ pid: 10, start: `${OTHER_BOOT}:99:500` }, probe())).toBe(false);
    expect(markRunning({ pid: 7, start: `${OTHER_BOOT}:99:400` }, probe())).toBe(false);
    // A container may have a boot id of its own (systemd-nspawn): from another namespace only a dead pid is gone.
    expect(markRunning({ pid: 10, start: `${OTHER_BOOT}:98:500` }, probe())).toBe(true);
    expect(markRunning({ pid: 12, start: `${OTHER_BOOT}:98:500` }, probe())).toBe(false);
  });

  it('without a start, or from another pid namespace, the pid alone decides, as locks always did', () => {
    expect(markRunning({ pid: 10 }, probe())).toBe(true);
    expect(markRunning({ pid: 7 }, probe())).toBe(true);
    expect(markRunning({ pid: 12 }, probe())).toBe(false);
    // A container's pid 10 is some other process here: only a dead pid says the owner is gone.
    expect(markRunning({ pid: 10, start: `${BOOT}:98:1` }, probe())).toBe(true);
    expect(markRunning({ pid: 12, start: `${BOOT}:98:1` }, probe())).toBe(false);
    // Where this process has no start (no /proc), a mark's start cannot be compared.
    expect(markRunning({ pid: 10, start: `${BOOT}:99:1` }, probe({ pid: 7 }))).toBe(true);
  });

  it('a live pid whose start cannot be read is taken to be the owner', () => {
    const hidden = { ...probe(), startOf: () => undefined };
    expect(markRunning({ pid: 10, start: `${BOOT}:99:1` }, hidden)).toBe(true);
  });
});

describe.runIf(process.platform === 'linux')("this system's probe", () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) child.kill();
  });

  it("names this process by the kernel's boot id, its pid namespace and its start tick", () => {
    const stat = readFileSync(`/proc/${process.pid}/stat`, 'latin1');
    const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim();
    const namespace = /\d+/.exec(readlinkSync('/proc/self/ns/pid'))?.[0];
    expect(systemProbe().own).toEqual({ pid: process.pid, start: `${boot}:${namespace}:${ticks}` });
  });

  it('tells a live process by its start, and a dead one by its pid', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(child);
    await new Promise((resolve) => child.once('spawn', resolve));
    const pid = child.pid!;
    const start = systemProbe().startOf(pid);
    expect(start).toMatch(/^[0-9a-f-]+:\d+:\d+$/);
    expect(markRunning({ pid, start: start! }, systemProbe())).toBe(true);
    const [boot, namespace, ticks] = start!.split(':');
    expect(markRunning({ pid, start: `${boot}:${namespace}:${Number(ticks) - 1}` }, systemProbe())).toBe(false);
    child.kill();
    await new Promise((resolve) => child.once('exit', resolve));
    expect(markRunning({ pid, start: start! }, systemProbe())).toBe(false);
  });
});
