import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';

/**
 * The baseline: what Node and Fastify on this machine do at all. It parses the same JSON body a
 * purchase sends, and answers a small transaction-shaped JSON document; no store, no auth, no
 * logging. Run as a child process by the bench (`startHelper`), which reads its URL over IPC.
 */

const app = Fastify({ logger: false });

app.post('/baseline', async (request) => {
  const body = request.body as { transaction?: { amount?: unknown; currency_code?: unknown; payment_method_token?: unknown } };
  const transaction = body.transaction ?? {};
  return {
    transaction: {
      token: randomBytes(13).toString('hex'),
      state: 'succeeded',
      succeeded: true,
      amount: transaction.amount ?? null,
      currency_code: transaction.currency_code ?? null,
      payment_method_token: transaction.payment_method_token ?? null,
    },
  };
});

const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.send?.({ url });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
