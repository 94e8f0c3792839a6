/** The help topics, `topup help TOPIC`: named here for the root help and errors; their texts load only when asked for. */
export const helpTopics = [
  ['environment', 'every environment variable topup reads'],
  ['exit-codes', 'what each exit code means, for scripts'],
  ['formatting', 'output on a terminal, piped, and with --json'],
  ['sandbox', 'the embedded offline sandbox, where requests go, and the test values'],
] as const;

export type HelpTopic = (typeof helpTopics)[number][0];

export const helpTopicNames: readonly HelpTopic[] = helpTopics.map(([name]) => name);

export function isHelpTopic(word: string): word is HelpTopic {
  return (helpTopicNames as readonly string[]).includes(word);
}

/** The topics as aligned lines, indented by two spaces. */
export function helpTopicTable(): string {
  const width = Math.max(...helpTopicNames.map((name) => name.length)) + 2;
  return helpTopics.map(([name, summary]) => `  ${name.padEnd(width)}${summary}`).join('\n');
}
