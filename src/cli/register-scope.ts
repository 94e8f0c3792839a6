/**
 * How much of a command group a run registers: all of it, or only its top-level command, which is all the root help
 * (`topup --help`) shows of a group: its name, arguments, options or not, and description. Subcommands are most of
 * what building the whole tree costs, and the root help is the one run that lists every group (src/cli/program.ts).
 */
export type RegisterScope = 'all' | 'top';
