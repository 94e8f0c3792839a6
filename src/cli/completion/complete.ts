import type { Command, Option } from 'commander';
import { CONFIG_KEYS } from '../commands/config/keys.js';
import { helpTopicNames } from '../help/topic-names.js';

/** The last line of `topup __complete`, as cobra's: a bit set that tells the shell script what to do besides. */
export const Directive = {
  /** Candidates as given; with none, the shell may complete file names. */
  default: 0,
  /** Never complete file names. */
  noFileComp: 4,
} as const;

export interface Candidate {
  value: string;
  description?: string | undefined;
}

export interface Completion {
  candidates: Candidate[];
  directive: number;
}

/** Where the words being completed send requests: the global options among them. */
export interface WordTarget {
  mock: boolean;
  profile?: string | undefined;
  baseUrl?: string | undefined;
}

/**
 * Values only a lookup knows. Profiles come from the config folder; the rest from the words' target, within a short
 * deadline, and an empty list when it passes or anything fails: completion never hangs a shell or prints an error.
 */
export interface Lookups {
  profiles(): Promise<string[]>;
  invoiceCodes(target: WordTarget): Promise<Candidate[]>;
  depositCodes(target: WordTarget): Promise<Candidate[]>;
  articleSlugs(target: WordTarget): Promise<Candidate[]>;
  paymentMethods(target: WordTarget): Promise<Candidate[]>;
}

/** What the words ask for, read from the command tree without running anything. */
export interface CompletionRequest {
  command: Command;
  path: string[];
  /** Arguments given to `command` so far. */
  positionals: string[];
  /** The word being completed (empty after a space). */
  current: string;
  /** The option whose value `current` is. */
  valueOf: Option | undefined;
  target: WordTarget;
}

const hidden = (thing: Command | Option) =>
  (thing as { _hidden?: boolean; hidden?: boolean })._hidden === true || (thing as Option).hidden === true;
const visibleCommands = (command: Command) => command.commands.filter((c) => !hidden(c));

/** The options `command` accepts: its own, then those of every command above it (the program's are global). */
function optionsAt(command: Command): Option[] {
  const options: Option[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) options.push(...at.options);
  return options;
}

function findOption(command: Command, flag: string): Option | undefined {
  return optionsAt(command).find((o) => o.long === flag || o.short === flag);
}

/** Reads the words before the one being completed: the command path, its arguments, and the options that pick the target. */
export function readWords(program: Command, words: readonly string[]): CompletionRequest {
  const current = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  const request: CompletionRequest = { command: program, path: [], positionals: [], current, valueOf: undefined, target: { mock: false } };
  const remember = (option: Option, value: string | undefined) => {
    if (option.long === '--mock') request.target.mock = true;
    if (option.long === '--profile') request.target.profile = value;
    if (option.long === '--base-url') request.target.baseUrl = value;
  };
  for (let i = 0; i < before.length; i++) {
    const word = before[i]!;
    if (word.startsWith('-') && word.length > 1) {
      const equals = word.startsWith('--') ? word.indexOf('=') : -1;
      const option = findOption(request.command, equals === -1 ? word : word.slice(0, equals));
      if (option === undefined) continue;
      if (!option.required || equals !== -1) {
        remember(option, equals === -1 ? undefined : word.slice(equals + 1));
        continue;
      }
      if (i + 1 === before.length) request.valueOf = option;
      else remember(option, before[++i]);
      continue;
    }
    const sub =
      request.positionals.length === 0
        ? visibleCommands(request.command).find((c) => c.name() === word || c.aliases().includes(word))
        : undefined;
    if (sub !== undefined) {
      request.command = sub;
      request.path.push(sub.name());
      request.positionals = [];
    } else request.positionals.push(word);
  }
  return request;
}

const INVOICE_COMMANDS = new Set([
  'orders show',
  'invoices show',
  'invoices status',
  'mock pay',
  'mock expire',
  'mock fail',
  'mock complete',
  'mock fail-order',
]);
/** Commands whose first argument is a file, and options whose value is one: the shell completes file names there. */
const FILE_ARGUMENTS = new Set(['mock state save', 'mock state load', 'mock state repair', 'orders batch']);
const FILE_OPTIONS = new Set(['--state', '--seed', '--results', '--input', '--ready-file', '--control-secret-file']);

const named = (values: readonly string[]): Candidate[] => values.map((value) => ({ value }));

/** Candidates for an option's value: its fixed choices, or what a lookup knows. */
async function optionValues(request: CompletionRequest, lookups: Lookups): Promise<Completion> {
  const option = request.valueOf!;
  if (option.argChoices !== undefined) return { candidates: named(option.argChoices), directive: Directive.noFileComp };
  if (FILE_OPTIONS.has(option.long ?? '')) return { candidates: [], directive: Directive.default };
  const candidates =
    option.long === '--profile'
      ? named(await lookups.profiles())
      : option.long === '--payment-method'
        ? await lookups.paymentMethods(request.target)
        : option.long === '--account'
          ? named(['demo', 'rich', 'broke', 'unlinked'])
          : [];
  return { candidates, directive: Directive.noFileComp };
}

/** Candidates for the next argument of the command. */
async function argumentValues(request: CompletionRequest, lookups: Lookups, program: Command): Promise<Completion> {
  const key = request.path.join(' ');
  const index = request.positionals.length;
  const none = { candidates: [], directive: Directive.noFileComp };
  if (FILE_ARGUMENTS.has(key) && index === 0) return { candidates: [], directive: Directive.default };
  if (INVOICE_COMMANDS.has(key) && index === 0)
    return { candidates: await lookups.invoiceCodes(request.target), directive: Directive.noFileComp };
  if (key === 'deposits show' && index === 0)
    return { candidates: await lookups.depositCodes(request.target), directive: Directive.noFileComp };
  if (key === 'articles show' && index === 0)
    return { candidates: await lookups.articleSlugs(request.target), directive: Directive.noFileComp };
  if ((key === 'config get' || key === 'config set') && index === 0)
    return { candidates: named(CONFIG_KEYS), directive: Directive.noFileComp };
  if (key === 'config set' && index === 1 && request.positionals[0] === 'profile')
    return { candidates: named(await lookups.profiles()), directive: Directive.noFileComp };
  if (key === 'help') {
    let command = program;
    for (const word of request.positionals) {
      const next = visibleCommands(command).find((c) => c.name() === word);
      if (next === undefined) return none;
      command = next;
    }
    const commands = visibleCommands(command).map((c) => ({ value: c.name(), description: c.description() }));
    return { candidates: index === 0 ? [...named(helpTopicNames), ...commands] : commands, directive: Directive.noFileComp };
  }
  const choices = request.command.registeredArguments[index]?.argChoices;
  return choices === undefined ? none : { candidates: named(choices), directive: Directive.noFileComp };
}

function flags(request: CompletionRequest): Candidate[] {
  const options = [
    ...optionsAt(request.command).filter((o) => !hidden(o)),
    { long: '--help', short: '-h', description: 'display help for command' },
  ];
  return options.flatMap((o) =>
    [o.long, o.short].filter((f): f is string => f !== undefined).map((value) => ({ value, description: o.description })),
  );
}

/**
 * What may come next after `words` (the command line after `topup`, the last word the one being typed).
 * Flags only when that word starts with "-": offering them after a bare space made bash insert their common "-".
 */
export async function complete(program: Command, words: readonly string[], lookups: Lookups): Promise<Completion> {
  const request = readWords(program, words);
  const result = request.valueOf
    ? await optionValues(request, lookups)
    : request.current.startsWith('-')
      ? { candidates: flags(request), directive: Directive.noFileComp }
      : request.positionals.length === 0 && visibleCommands(request.command).length > 0 && request.path.join(' ') !== 'help'
        ? {
            candidates: visibleCommands(request.command).map((c) => ({ value: c.name(), description: c.description() })),
            directive: Directive.noFileComp,
          }
        : await argumentValues(request, lookups, program);
  const seen = new Set<string>();
  const candidates = result.candidates.filter((c) => c.value.startsWith(request.current) && !seen.has(c.value) && seen.add(c.value));
  return { candidates, directive: result.directive };
}

/** The protocol: one candidate a line (`value<TAB>description`), then `:directive`. */
export function completionText(completion: Completion): string {
  const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
  const lines = completion.candidates.map((c) => (c.description ? `${c.value}\t${oneLine(c.description)}` : c.value));
  return [...lines, `:${completion.directive}`].join('\n') + '\n';
}
