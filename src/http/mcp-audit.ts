import type { FastifyInstance } from 'fastify';
import type { AuditService } from '../services/audit.service.js';

/** The header `coffer mcp` names its tool in (docs/mcp.md). */
export const MCP_TOOL_HEADER = 'x-coffer-mcp-tool';
const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Every API call made by an MCP tool (docs/mcp.md) goes into the organization's audit log: who
 * (the access secret), which tool, the route pattern, the method and the status; never a body, a
 * parameter or a URL. Written before the answer is sent, so an agent's call is on record when it
 * returns. Calls that did not authenticate name no organization, and are not recorded.
 */
export function registerMcpAudit(app: FastifyInstance, audit: AuditService): void {
  // A callback hook: a call not made by a tool (almost every one) passes without a promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    const tool = request.headers[MCP_TOOL_HEADER];
    if (typeof tool !== 'string' || request.auth === null) return done(null, payload);
    const caller = request.auth;
    audit.record(
      { type: 'access_secret', id: caller.secret.key, address: request.ip ?? null },
      {
        organizationToken: caller.organization.token,
        action: 'mcp.tool_call',
        objectType: 'mcp_tool',
        objectId: TOOL_NAME.test(tool) ? tool : 'unnamed',
        environmentKey: caller.environment.key,
        details: { method: request.method, route: request.routeOptions.url ?? null, status: reply.statusCode },
      },
    ).then(() => done(null, payload), done);
  });
}
