const STATUS = Symbol.for('topup.answerBegunStatus');

/**
 * Marks a fetch failure that came after the answer had begun: its status line had arrived, then its body was cut short
 * or could not be decoded. A fetch that reads the whole body before it resolves (the CLI's, src/cli/http-fetch.ts)
 * fails where the client expects a request's failure; with this mark the client still knows the server was reached
 * and answered `status`, so the error says so and a POST is not taken for one that never arrived.
 */
export function answerBegun<E extends Error>(error: E, status: number): E {
  return Object.assign(error, { [STATUS]: status });
}

/** The status of the answer a failed fetch had begun (see answerBegun); undefined when none had. */
export function answerBegunStatus(error: unknown): number | undefined {
  if (!(error instanceof Error)) return undefined;
  const status = (error as unknown as Record<symbol, unknown>)[STATUS];
  return typeof status === 'number' ? status : undefined;
}

/**
 * On a fetch's init: called with the status once the answer's head has come, by a fetch that reads the whole body
 * before it resolves (the CLI's), so that a timeout while the body stalls is told from one with no answer at all.
 * Other fetches ignore it: theirs resolve at the head.
 */
export const ON_ANSWER_BEGUN = Symbol.for('topup.onAnswerBegun');
