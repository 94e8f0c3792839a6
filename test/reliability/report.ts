/** With RELIABILITY_REPORT=1 (npm run reliability), the reliability tests print the figures docs/reliability.md quotes. */
export function report(name: string, figures: unknown): void {
  if (process.env.RELIABILITY_REPORT) process.stdout.write(`reliability ${name}: ${JSON.stringify(figures)}\n`);
}
