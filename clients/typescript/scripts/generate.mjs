#!/usr/bin/env node
/* global fetch */
// @ts-check
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { renderClientTypes } from './render.mjs';

/*
 * Regenerates src/schema.d.ts from the OpenAPI document. Without an argument the document is built
 * from this checkout's source (src/http/openapi, bundled with esbuild, no server needed); with a URL
 * or a file, it is read from there (`node generate.mjs https://localhost:8443/v1/openapi.json`).
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const target = path.resolve(here, '../src/schema.d.ts');

async function documentFromSource() {
  const out = path.join(root, '.tmp', 'client-generate', 'document.mjs');
  await build({
    entryPoints: [path.join(root, 'src/http/openapi/document.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: out,
    logLevel: 'warning',
  });
  const { buildOpenApiDocument } = await import(pathToFileURL(out).href);
  return buildOpenApiDocument('1.0.0');
}

async function documentFrom(source) {
  if (/^https?:\/\//.test(source)) {
    const response = await fetch(source);
    if (!response.ok) throw new Error(`GET ${source} answered ${response.status}`);
    return response.json();
  }
  return JSON.parse(fs.readFileSync(source, 'utf8'));
}

const source = process.argv[2];
const document = source === undefined ? await documentFromSource() : await documentFrom(source);
fs.writeFileSync(target, await renderClientTypes(document));
process.stdout.write(`wrote ${path.relative(process.cwd(), target)}\n`);
