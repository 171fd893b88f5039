import { ownAuthorization, requestLoop, withheldBody, type Attack, type AttackRequest, type AttackTarget } from './attack.js';
import { BODY_SHAPES, type BodyShape } from './hostile-bodies.js';

/**
 * The attacks of the availability drill (docs/wire-compatibility.md, "Request body limits"), in
 * the order they run. Each is a small named unit (attack.ts); attacks of other kinds (slow
 * callbacks, large pages) are added to this list.
 */

/** Connections of each CPU attack: the four of the report. */
const CPU_CONNECTIONS = 4;
/** Connections of the slow-body attack, and what each sends before holding back the rest. */
const SLOW_CONNECTIONS = 400;
const SLOW_DECLARED = 1024 * 1024;
const SLOW_SENT = 960 * 1024;

/** The public route a shape is sent to: the card form's (JSON, XML) or the transparent redirect's (a form). */
function publicRequest(shape: BodyShape, target: AttackTarget, body: { contentType: string; bytes: Buffer }): AttackRequest {
  const headers = { 'Content-Type': body.contentType };
  if (shape === 'form') return { method: 'POST', path: '/v1/payment_methods', headers, body: body.bytes };
  const format = shape.startsWith('xml') ? 'xml' : 'json';
  return { method: 'POST', path: `/v1/payment_methods/restricted.${format}?environment_key=${target.environmentKey}`, headers, body: body.bytes };
}

/** An authenticated route, called without credentials. */
function authenticatedRequest(shape: BodyShape, body: { contentType: string; bytes: Buffer }): AttackRequest {
  const path = shape === 'form' ? '/v1/gateways.json' : shape.startsWith('xml') ? '/v1/payment_methods.xml' : '/v1/payment_methods.json';
  return { method: 'POST', path, headers: { 'Content-Type': body.contentType }, body: body.bytes };
}

/** Four unauthenticated connections looping 1 MiB bodies of one shape at one kind of route. */
function bodyAttack(shape: BodyShape, routes: 'public' | 'authenticated'): Attack {
  return {
    id: `${shape}@${routes}`,
    title: `${CPU_CONNECTIONS} unauthenticated connections looping 1 MiB ${shape} bodies at the ${routes} routes`,
    goal: 'latency',
    run: async (target, until, tally) => {
      const body = BODY_SHAPES[shape]();
      const request = routes === 'public' ? publicRequest(shape, target, body) : authenticatedRequest(shape, body);
      await Promise.all(Array.from({ length: CPU_CONNECTIONS }, () => requestLoop(target, () => request, until, tally)));
    },
  };
}

/** What the slow-body connections send, in turn: every route a stranger reaches, and one with credentials. */
function slowRequests(target: AttackTarget, authenticated: boolean): AttackRequest[] {
  const body = Buffer.alloc(SLOW_DECLARED, 0x20);
  const json = { 'Content-Type': 'application/json' };
  if (authenticated) return [{ method: 'POST', path: '/v1/receivers.json', headers: { ...json, Authorization: ownAuthorization(target) }, body }];
  return [
    { method: 'POST', path: `/v1/payment_methods/restricted.json?environment_key=${target.environmentKey}`, headers: json, body },
    { method: 'POST', path: '/v1/payment_methods', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body },
    { method: 'POST', path: '/v1/payment_methods.json', headers: json, body },
    { method: 'POST', path: '/v1/receivers.json', headers: json, body },
  ];
}

function slowBodyAttack(authenticated: boolean): Attack {
  const who = authenticated ? 'with a tenant’s own credentials' : 'unauthenticated';
  return {
    id: authenticated ? 'slow-bodies@authenticated' : 'slow-bodies',
    title: `${SLOW_CONNECTIONS} connections ${who}, each sending 960 KiB of a 1 MiB body and holding back the rest`,
    goal: 'memory',
    run: async (target, until, tally) => {
      const requests = slowRequests(target, authenticated);
      await Promise.all(Array.from({ length: SLOW_CONNECTIONS }, (_, index) => withheldBody(target, requests[index % requests.length] as AttackRequest, SLOW_SENT, until, tally)));
    },
  };
}

const SHAPES = Object.keys(BODY_SHAPES) as BodyShape[];

export const ATTACKS: readonly Attack[] = [
  ...SHAPES.map((shape) => bodyAttack(shape, 'public')),
  ...SHAPES.map((shape) => bodyAttack(shape, 'authenticated')),
  slowBodyAttack(false),
  slowBodyAttack(true),
];

export function attackById(id: string): Attack {
  const attack = ATTACKS.find((candidate) => candidate.id === id);
  if (attack === undefined) throw new Error(`no attack ${id}`);
  return attack;
}
