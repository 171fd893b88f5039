/** One method of one route, as the running app declares it. */
export interface Endpoint {
  method: string;
  /** The route's URL pattern, e.g. `/v1/gateways/:token/purchase`. */
  url: string;
}

const LINE = /^((?:│ {3}| {4})*)[├└]── (.+?)(?: \(([A-Z]+(?:, [A-Z]+)*)\))?$/;

/**
 * Every endpoint in Fastify's `printRoutes({ commonPrefix: false })` tree. Each line is one node:
 * its depth is its indentation (four columns a level), its text the part of the URL it adds to
 * its parent's, and the methods in parentheses, when present, make it a route. Reading the app's
 * own table means a route added tomorrow is fuzzed tomorrow, without a list to keep up to date.
 */
export function parsePrintedRoutes(tree: string): Endpoint[] {
  const prefixes: string[] = [];
  const endpoints: Endpoint[] = [];
  for (const line of tree.split('\n')) {
    if (line.trim() === '') continue;
    const match = LINE.exec(line);
    if (match === null) throw new Error(`unexpected line in the route table: ${line}`);
    const depth = (match[1] as string).length / 4;
    const url = (prefixes[depth - 1] ?? '') + (match[2] as string);
    prefixes[depth] = url;
    prefixes.length = depth + 1;
    for (const method of match[3]?.split(', ') ?? []) endpoints.push({ method, url });
  }
  return endpoints;
}
