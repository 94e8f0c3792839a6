// @ts-check
// Writes src/contract/openapi/example-data.ts from the built sandbox (see openapi-examples.mjs); then `npm run build`.
import { writeFileSync } from 'node:fs';
import { createSandbox } from '../dist/mocks.js';
import { collectExamples, EXAMPLE_DATA_FILE, exampleDataText } from './openapi-examples.mjs';

writeFileSync(EXAMPLE_DATA_FILE, await exampleDataText(await collectExamples(createSandbox)));
