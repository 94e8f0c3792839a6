// @ts-check
// Writes openapi.json from the built contract; `npm run build` runs it after tsup.
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../dist/contract.js';

const target = new URL('../openapi.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
