// The package's main export: the client, its errors and the contract's types. Nothing from mocks/.
export * from './client/index.js';
export type * from './contract/index.js';
