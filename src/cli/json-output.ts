import type { Command } from 'commander';

/** Commands that print no JSON with --json, so that --jq has nothing to filter: a shell script, a browser tab. */
const withoutJson = new WeakSet<Command>();

/** Marks a command whose output is not JSON: `--jq` with it is a usage error. */
export function printsNoJson(command: Command): Command {
  withoutJson.add(command);
  return command;
}

export function printsJson(command: Command): boolean {
  return !withoutJson.has(command);
}
