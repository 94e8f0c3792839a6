/**
 * A module loaded once, when first asked for: the sandbox's zod-backed parts, which the offline CLI's embedded sandbox
 * loads only for a request that needs them (mocks/assembly/pipeline.ts). `current` is the module once loaded, so the
 * requests after it are served at once; a load that failed is tried again by the next `load()`, not refused for good.
 */
export interface OnDemand<T> {
  readonly current: T | undefined;
  load(): Promise<T>;
}

export function onDemand<T>(importModule: () => Promise<T>): OnDemand<T> {
  let current: T | undefined;
  let loading: Promise<T> | undefined;
  return {
    get current() {
      return current;
    },
    load() {
      return (loading ??= importModule().then(
        (loaded) => (current = loaded),
        (error: unknown) => {
          loading = undefined;
          throw error;
        },
      ));
    },
  };
}
