import type { Command } from 'commander';
import type { ToolGroup } from '../mcp/tools.js';

interface McpFlags {
  allowTokenization?: boolean;
  allowMoneyMovement?: boolean;
  allowAdmin?: boolean;
}

/** `coffer mcp`: Coffer's API as MCP tools over stdio (docs/mcp.md). */
export function mcpCommand(cli: Command, version: string): void {
  cli
    .command('mcp')
    .description('serve Coffer’s API as MCP tools over stdio, read-only unless allowed (docs/mcp.md); reads COFFER_MCP_URL, COFFER_MCP_ENVIRONMENT_KEY, COFFER_MCP_ACCESS_SECRET')
    .option('--allow-tokenization', 'also offer tools that vault, retain and redact payment methods')
    .option('--allow-money-movement', 'also offer purchase, authorize, verify, capture, refund and void')
    .option('--allow-admin', 'also offer tools that add or redact gateways and receivers, remove workflows, redeliver events')
    .action(async (flags: McpFlags) => {
      // Loaded here, not with the CLI: the MCP SDK is a large library every other command would hold.
      const [{ StdioServerTransport }, { loadMcpConfig }, { CofferApi }, { buildMcpServer }] = await Promise.all([
        import('@modelcontextprotocol/sdk/server/stdio.js'),
        import('../config/mcp-config.js'),
        import('../mcp/coffer-api.js'),
        import('../mcp/server.js'),
      ]);
      const config = loadMcpConfig();
      const allowed = new Set<ToolGroup>();
      if (flags.allowTokenization === true) allowed.add('tokenization');
      if (flags.allowMoneyMovement === true) allowed.add('money');
      if (flags.allowAdmin === true) allowed.add('admin');
      const api = new CofferApi(config);
      const server = buildMcpServer(api, allowed, version);
      // stdout is the protocol's: nothing else may be written to it.
      await server.connect(new StdioServerTransport());
      const stop = async () => {
        await server.close();
        await api.close();
      };
      process.stdin.once('end', () => void stop());
    });
}
