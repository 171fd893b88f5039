import fs from 'node:fs';
import { ConfigError } from './config.js';

type Env = Record<string, string | undefined>;

/** What `coffer mcp` needs to reach a running Coffer (docs/mcp.md). */
export interface McpConfig {
  /** Coffer's base URL, e.g. https://coffer.example.com:8443 */
  url: string;
  environmentKey: string;
  /** The access secret: from the environment only, never a command-line argument (visible in `ps`). */
  accessSecret: string;
  /** PEM of a CA to trust besides the system's (a self-signed Coffer), or null. */
  ca: string | null;
}

function required(env: Env, name: string): string {
  const value = env[name];
  if (value === undefined || value.trim() === '') throw new ConfigError(name, 'is required by coffer mcp (docs/mcp.md)');
  return value.trim();
}

export function loadMcpConfig(env: Env = process.env): McpConfig {
  const url = required(env, 'COFFER_MCP_URL');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('COFFER_MCP_URL', 'is not a URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new ConfigError('COFFER_MCP_URL', 'must be an http(s) URL');
  const caFile = env.COFFER_MCP_CA_FILE;
  let ca: string | null = null;
  if (caFile !== undefined && caFile !== '') {
    try {
      ca = fs.readFileSync(caFile, 'utf8');
    } catch (error) {
      throw new ConfigError('COFFER_MCP_CA_FILE', `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  return { url: url.replace(/\/+$/, ''), environmentKey: required(env, 'COFFER_MCP_ENVIRONMENT_KEY'), accessSecret: required(env, 'COFFER_MCP_ACCESS_SECRET'), ca };
}
