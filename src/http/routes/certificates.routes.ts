import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { Secret } from '../../domain/secret.js';
import type { CertificateService } from '../../services/certificate.service.js';
import { parseListQuery } from '../../services/list-query.js';
import { callerOf } from '../auth.js';
import { fieldsOf } from '../body.js';
import { sendWire, sendWireList } from '../reply.js';
import { parseInput } from '../validation.js';
import { certificateView } from '../views/certificate.view.js';
import { generateSchema, givenFields, updateSchema, uploadSchema } from './certificates.schemas.js';

type TokenParams = { Params: { token: string } };

/** The CSR subject as asked for; fields not given are absent from it. */
function requestedSubject(parsed: z.output<typeof generateSchema>) {
  return {
    cn: parsed.cn,
    o: parsed.o ?? null,
    ou: parsed.ou ?? null,
    c: parsed.c ?? null,
    st: parsed.st ?? null,
    l: parsed.l ?? null,
    email_address: parsed.email_address ?? null,
  };
}

/** API.md §4 Certificates; each write and the list count against their §7 limit. */
export function certificateRoutes(app: FastifyInstance, certificates: CertificateService): void {
  app.get('/v1/certificates', { config: { rateLimits: ['certificates_list'] } }, async (request, reply) => {
    const query = parseListQuery(request.query as Record<string, unknown>);
    const rows = await certificates.list(callerOf(request).environment, query);
    return sendWireList(request, reply, 'certificates', 'certificate', rows, certificateView);
  });

  app.post('/v1/certificates', { config: { rateLimits: ['certificates_create'] } }, async (request, reply) => {
    const parsed = parseInput(uploadSchema, givenFields(fieldsOf(request, 'certificate')));
    const created = await certificates.upload(callerOf(request).environment, {
      pem: parsed.pem,
      // Typed as secret from here on: it redacts itself if anything tries to print it.
      privateKey: new Secret(parsed.private_key),
      level: parsed.level ?? 'environment',
    }, request);
    return sendWire(request, reply, 201, 'certificate', certificateView(created));
  });

  app.post('/v1/certificates/generate', { config: { rateLimits: ['certificates_generate'] } }, async (request, reply) => {
    const parsed = parseInput(generateSchema, givenFields(fieldsOf(request, 'certificate')));
    const created = await certificates.generate(callerOf(request).environment, {
      algorithm: parsed.algorithm,
      subject: requestedSubject(parsed),
      level: parsed.level ?? 'environment',
    }, request);
    return sendWire(request, reply, 201, 'certificate', certificateView(created));
  });

  // Not in API.md's list, but every other resource has it and clients expect to read one back.
  app.get<TokenParams>('/v1/certificates/:token', async (request, reply) => {
    const row = await certificates.show(callerOf(request).environment, request.params.token);
    return sendWire(request, reply, 200, 'certificate', certificateView(row));
  });

  app.put<TokenParams>('/v1/certificates/:token', { config: { rateLimits: ['certificates_update'] } }, async (request, reply) => {
    const parsed = parseInput(updateSchema, givenFields(fieldsOf(request, 'certificate')));
    const row = await certificates.attachSigned(callerOf(request).environment, request.params.token, parsed.pem, request);
    return sendWire(request, reply, 200, 'certificate', certificateView(row));
  });

  // Coffer's addition (no Spreedly counterpart): erases the private key, pem and CSR for good.
  app.route<TokenParams>({
    method: ['PUT', 'POST'],
    url: '/v1/certificates/:token/redact',
    config: { rateLimits: ['certificates_update'] },
    handler: async (request, reply) => {
      const row = await certificates.redact(callerOf(request).environment, request.params.token, request);
      return sendWire(request, reply, 200, 'certificate', certificateView(row));
    },
  });
}
