import { redactText, type KnownSecrets } from '../contract/redact.js';

/**
 * Calls one of the caller's hooks (onRequest, onResponse, onWait) for its side effects. It is not awaited: a promise an
 * async hook returns is left to run, and if it rejects, that becomes a process warning (TOPUP_HOOK_REJECTED) rather than
 * an unhandled rejection, which would end the caller's process. The warning quotes the rejection with the client's
 * token cut, as every error of the client is. A hook that throws at once throws to the call that reached it, ending
 * that call.
 */
export function callHook<A>(name: string, hook: ((arg: A) => void) | undefined, arg: A, secrets: KnownSecrets): void {
  if (hook === undefined) return;
  const returned: unknown = hook(arg);
  if (typeof (returned as PromiseLike<unknown> | undefined)?.then !== 'function') return;
  (returned as PromiseLike<unknown>).then(undefined, (error: unknown) => {
    const reason = redactText(error instanceof Error ? error.message : String(error), secrets);
    globalThis.process?.emitWarning?.(
      `topup client: the ${name} hook's promise rejected (${reason.slice(0, 200)}); hooks are not awaited.`,
      { code: 'TOPUP_HOOK_REJECTED' },
    );
  });
}
