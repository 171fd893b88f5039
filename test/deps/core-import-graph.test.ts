import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * The core and the CLI load only what every process needs; the HTTP app and the libraries only
 * some processes use are loaded where first used (docs/architecture.md, "Wiring"): what a process
 * loads stays in its heap, and a long import's resident memory grows with it (docs/benchmarks.md,
 * "Import"). This walks the static (value) imports from src/app.ts and src/cli.ts and names any of
 * those libraries reached; `import type` and `import()` are not static loads.
 */

const SRC = path.resolve(import.meta.dirname, '../../src');

/** Loaded lazily, by the modules that use them. */
const LOADED_WHEN_USED = ['fastify', 'openpgp', 'ssh2', 'pg', 'ioredis', 'prom-client', '@peculiar/x509', '@peculiar/asn1-schema', '@peculiar/asn1-x509', '@peculiar/asn1-cms', '@modelcontextprotocol/sdk'];

const STATIC_FROM = /^\s*(?:import|export)\s+(?!type\s)(?:[^;'"]*?\s+from\s+)?'([^']+)'/gm;

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

/** Every package reached by static imports from `entries`, with the first module that imports it. */
function staticPackages(entries: string[]): Map<string, string> {
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(STATIC_FROM)) {
      const specifier = match[1] as string;
      if (specifier.startsWith('.')) queue.push(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
      else if (!specifier.startsWith('node:') && !packages.has(packageOf(specifier))) packages.set(packageOf(specifier), path.relative(SRC, file));
    }
  }
  return packages;
}

describe('what the core and the CLI load at start-up', () => {
  const packages = staticPackages([path.join(SRC, 'app.ts'), path.join(SRC, 'cli.ts')]);

  it('reaches the libraries every process needs (the walk follows the graph)', () => {
    expect([...packages.keys()]).toEqual(expect.arrayContaining(['kysely', 'better-sqlite3', 'undici', 'commander', 'zod']));
  });

  it('reaches none of the libraries loaded where first used, nor the HTTP app', () => {
    const reached = LOADED_WHEN_USED.filter((name) => packages.has(name)).map((name) => `${name} (from ${packages.get(name)})`);
    expect(reached).toEqual([]);
  });

  it('finds a static import the way it would find a regression', () => {
    const withServer = staticPackages([path.join(SRC, 'http-app.ts')]);
    expect(withServer.has('fastify')).toBe(true);
  });
});
