import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FILTERED } from '../domain/scrubbing/scrubber.js';
import { replaceCardLike } from '../domain/scrubbing/card-like.js';
import type { CofferApi } from './coffer-api.js';
import { toolsFor, type ToolGroup, type ToolSpec } from './tools.js';

/** The most of an answer a tool returns (an agent's context is not a bulk export). */
const MAX_ANSWER_CHARS = 200_000;

/**
 * What a tool returns: the API's answer as text, with any card-like number masked. The API never
 * shows a full card number; this is the second lock, so that no tool can return one, whatever a
 * gateway or a receiver put in a message or a transcript.
 */
export function toolAnswer(status: number, text: string): CallToolResult {
  const clipped = text.length > MAX_ANSWER_CHARS ? `${text.slice(0, MAX_ANSWER_CHARS)}\n… (cut at ${MAX_ANSWER_CHARS} characters; ask for a smaller page)` : text;
  const safe = replaceCardLike(clipped, FILTERED);
  return { content: [{ type: 'text', text: `HTTP ${status}\n${safe}` }], isError: status >= 400 };
}

function register(server: McpServer, api: CofferApi, tool: ToolSpec): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.input,
      annotations: { readOnlyHint: tool.group === 'read', destructiveHint: tool.group !== 'read' && tool.group !== 'tokenization' ? true : tool.name.startsWith('redact'), openWorldHint: tool.group === 'money' },
    },
    async (args: Record<string, unknown>) => {
      try {
        const answer = await api.call(tool.name, tool.call(args));
        return toolAnswer(answer.status, answer.text);
      } catch (error) {
        // A transport failure: its name and code only (a message could quote a URL).
        const code = (error as { code?: unknown }).code;
        return { content: [{ type: 'text', text: `Coffer could not be reached (${(error as Error).name}${typeof code === 'string' ? ` ${code}` : ''})` }], isError: true };
      }
    },
  );
}

/** An MCP server offering Coffer's API as tools: read-only ones always, the others by group. */
export function buildMcpServer(api: CofferApi, allowed: ReadonlySet<ToolGroup>, version: string): McpServer {
  const server = new McpServer(
    { name: 'coffer', version },
    { instructions: "Tools over a Coffer payment vault's v1 API. Card numbers are never returned (last four digits only). Each call is recorded in the organization's audit log." },
  );
  for (const tool of toolsFor(allowed)) register(server, api, tool);
  return server;
}
