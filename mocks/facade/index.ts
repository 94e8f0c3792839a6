/**
 * The one door from the CLI into the sandbox: src/cli imports these modules and nothing else under mocks/
 * (test/architecture/layers.test.ts holds it to that, `import()` included). Each module is what one part of the
 * CLI needs, so that the CLI loads each with `import()` where it is lazy and its offline chunk does not grow:
 * - exchange.ts: the request and answer types and helpers the in-process fetch uses (eager);
 * - embedded.ts: the embedded sandbox behind offline commands, its state file and its request log;
 * - announcement.ts: whether `topup mock serve` serves that state now, and where (read before the sandbox loads);
 * - serve.ts: `mock serve` and the state commands (the HTTP sandbox, faults, the state file);
 * - requests.ts: the request journal as `mock logs` and the control commands read and filter it;
 * - control.ts: the shapes the control moves answer with, and the one fault syntax (`mock faults`).
 * This index only documents the door: importing it would load every part at once.
 */
export {};
