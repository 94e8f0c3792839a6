/** What mocks/web/control-secret/script.js gives the pages' own scripts, which run after it in the same page. */
interface TopupControl {
  controlFetch(url: string, init?: RequestInit & { headers?: Record<string, string> }): Promise<Response>;
  /** `run`: the sandbox run that sent the entry (its instance); another after a restart. */
  followRequests(path: string, onEntry: (entry: unknown, run: string) => void): void;
}

// eslint-disable-next-line no-var
declare var topupControl: TopupControl;
