import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';

/*
 * What Coffer keeps on disk (docs/deployment.md, "File permissions"): the SQLite database and its
 * WAL (password hashes, personal data, the audit log, sealed card data), the local master key,
 * TLS private keys. Coffer creates them for its own user only: directories 0700, files 0600.
 * What it finds wider at start (an install made before, a copy, a restore) is reported, not
 * changed: an operator may share a directory on purpose, and a silent chmod would hide that.
 */

export const PRIVATE_DIRECTORY_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Group and other bits: none may be set on what Coffer keeps. */
const SHARED_BITS = 0o077;
/** The data directory holds a handful of files; a tree far larger than that is not walked further. */
const MAX_ENTRIES = 10_000;

export interface WidePermission {
  path: string;
  kind: 'directory' | 'file';
  /** The permission bits found, e.g. 0o644. */
  mode: number;
}

/** Where Coffer keeps private files under this configuration: `tree` is walked, `single` checked alone. */
export function privatePaths(config: Config): { tree: string[]; single: string[] } {
  const single: string[] = [];
  // The database may live outside the data directory (COFFER_DATABASE_URL=sqlite:…): its files
  // are checked wherever they are, not the directory around them (/var/lib is rightly 0755).
  const store = config.store;
  if (store.kind === 'sqlite') single.push(...['', '-wal', '-shm', '-journal'].map((suffix) => `${store.path}${suffix}`));
  if (config.tls.mode === 'files') single.push(config.tls.keyPath);
  return { tree: [config.dataDir], single };
}

function check(file: string, stat: fs.Stats, found: Map<string, WidePermission>): void {
  const mode = stat.mode & 0o777;
  if ((mode & SHARED_BITS) === 0) return;
  found.set(file, { path: file, kind: stat.isDirectory() ? 'directory' : 'file', mode });
}

/** Directories and files among `paths` (and under the `tree` roots) that group or others may use. */
export function widePermissions(paths: { tree: readonly string[]; single: readonly string[] }): WidePermission[] {
  const found = new Map<string, WidePermission>();
  const pending = [...paths.tree];
  let entries = 0;
  while (pending.length > 0 && entries < MAX_ENTRIES) {
    const current = pending.pop() as string;
    // lstat: a symbolic link is not followed (its target is someone else's file, or checked on its own).
    const stat = fs.lstatSync(current, { throwIfNoEntry: false });
    if (stat === undefined || stat.isSymbolicLink()) continue;
    entries += 1;
    check(current, stat, found);
    if (stat.isDirectory()) for (const name of fs.readdirSync(current)) pending.push(path.join(current, name));
  }
  for (const file of paths.single) {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (stat !== undefined) check(file, stat, found);
  }
  return [...found.values()].sort((a, b) => a.path.localeCompare(b.path));
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}

/** One WARN line per path found wider than 0700/0600: the path, its mode and the command that fixes it. */
export function warnWidePermissions(logger: Logger, config: Config): WidePermission[] {
  const wide = widePermissions(privatePaths(config));
  for (const entry of wide) {
    const wanted = entry.kind === 'directory' ? PRIVATE_DIRECTORY_MODE : PRIVATE_FILE_MODE;
    const fix = `chmod ${wanted.toString(8)} '${entry.path.replace(/'/g, `'\\''`)}'`;
    logger.warn(
      { path: entry.path, mode: octal(entry.mode), expected: octal(wanted), fix },
      `${entry.kind} ${entry.path} has mode ${octal(entry.mode)}: other users of this machine may read Coffer's data; run: ${fix}`,
    );
  }
  return wide;
}
