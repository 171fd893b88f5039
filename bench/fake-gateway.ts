import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake gateway on 127.0.0.1 that answers every PaymentIntent after a fixed delay (50 ms by
 * default, `process.argv[2]` otherwise): the subset of Stripe's wire format the Stripe adapter
 * reads (`id`, `status`, `latest_charge`), so Coffer's own cost on a gateway call can be told
 * apart from the gateway's. Run as a child process by the bench, which reads its URL over IPC.
 */

const delayMs = Number(process.argv[2] ?? 50);

function intent(form: URLSearchParams): Record<string, unknown> {
  const id = `pi_${randomBytes(12).toString('hex')}`;
  return {
    id,
    object: 'payment_intent',
    amount: Number(form.get('amount') ?? 0),
    currency: form.get('currency') ?? 'usd',
    status: form.get('capture_method') === 'manual' ? 'requires_capture' : 'succeeded',
    latest_charge: {
      id: `ch_${randomBytes(12).toString('hex')}`,
      object: 'charge',
      outcome: { type: 'authorized', network_status: 'approved_by_network' },
      payment_method_details: { type: 'card', card: { checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' } } },
    },
    last_payment_error: null,
  };
}

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    setTimeout(() => {
      const body = JSON.stringify(request.method === 'POST' && request.url === '/v1/payment_intents' ? intent(form) : { error: { type: 'invalid_request_error', message: 'Unrecognized request URL.' } });
      response.writeHead(request.url === '/v1/payment_intents' ? 200 : 404, { 'content-type': 'application/json', 'request-id': `req_${randomBytes(8).toString('hex')}` });
      response.end(body);
    }, delayMs);
  });
});
server.keepAliveTimeout = 30_000;

server.listen(0, '127.0.0.1', () => {
  process.send?.({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
