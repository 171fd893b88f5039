import { describe, expect, it } from 'vitest';
import { parsePrintedRoutes } from '../../drills/route-table.js';
import { clusterOnPort } from '../../drills/pg-restart.drill.js';

describe("reading the app's route table", () => {
  const tree = [
    '├── /healthz (GET, HEAD)',
    '├── /v1/gateways (OPTIONS, POST, GET, HEAD)',
    '│   ├── _options (GET, HEAD)',
    '│   └── /:token (GET, HEAD, PUT)',
    '│       ├── /redact (PUT, POST)',
    '│       └── /purchase (POST)',
    '└── /v1/',
    '    └── transactions (GET)',
    '        └── /:token/transcript (GET)',
  ].join('\n');

  it('joins each node to its parents and yields one endpoint per method', () => {
    expect(parsePrintedRoutes(tree)).toEqual([
      { method: 'GET', url: '/healthz' },
      { method: 'HEAD', url: '/healthz' },
      { method: 'OPTIONS', url: '/v1/gateways' },
      { method: 'POST', url: '/v1/gateways' },
      { method: 'GET', url: '/v1/gateways' },
      { method: 'HEAD', url: '/v1/gateways' },
      { method: 'GET', url: '/v1/gateways_options' },
      { method: 'HEAD', url: '/v1/gateways_options' },
      { method: 'GET', url: '/v1/gateways/:token' },
      { method: 'HEAD', url: '/v1/gateways/:token' },
      { method: 'PUT', url: '/v1/gateways/:token' },
      { method: 'PUT', url: '/v1/gateways/:token/redact' },
      { method: 'POST', url: '/v1/gateways/:token/redact' },
      { method: 'POST', url: '/v1/gateways/:token/purchase' },
      { method: 'GET', url: '/v1/transactions' },
      { method: 'GET', url: '/v1/transactions/:token/transcript' },
    ]);
  });

  it('refuses a line it does not understand rather than fuzz too little', () => {
    expect(() => parsePrintedRoutes('/v1/gateways (GET)')).toThrow('unexpected line in the route table: /v1/gateways (GET)');
  });
});

describe('finding the local PostgreSQL cluster to restart', () => {
  const listing = '15  main    5432 online postgres /var/lib/postgresql/15/main   /var/log/postgresql/postgresql-15-main.log\n15  other   5433 online postgres /x /y\n';

  it('picks the cluster listening on the port of the URL', () => {
    expect(clusterOnPort(listing, 5433)).toEqual({ version: '15', name: 'other', port: 5433 });
    expect(clusterOnPort(listing, 5432)).toEqual({ version: '15', name: 'main', port: 5432 });
    expect(clusterOnPort(listing, 6543)).toBeNull();
  });
});
