// @ts-check
/* global structuredClone */
import openapiTS, { astToString } from 'openapi-typescript';

/*
 * The generated part of the client: TypeScript types of the OpenAPI document, by openapi-typescript.
 * Shared by the regeneration script (generate.mjs) and the test that the checked-in file is current.
 */

const HEADER = [
  '/**',
  ' * Generated from Coffer\'s OpenAPI document (GET /v1/openapi.json) by openapi-typescript.',
  ' * Do not edit: run `npm run client:generate` at the repository root (clients/typescript/README.md).',
  ' */',
  '',
  '',
].join('\n');

/**
 * @param {Record<string, unknown>} document the OpenAPI 3.1 document
 * @returns {Promise<string>} the text of src/schema.d.ts
 */
export async function renderClientTypes(document) {
  const ast = await openapiTS(/** @type {any} */ (structuredClone(document)), { alphabetize: false, immutable: false, silent: true });
  return HEADER + astToString(ast);
}
