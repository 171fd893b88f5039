import type { FastifyRequest } from 'fastify';
import { sessionOf, type PortalDeps } from './context.js';
import type { PageFrame } from './layout.js';
import type { Environment } from '../domain/environment.js';

/** Organizations have a handful of environments; the switcher lists them all. */
const ALL = { sinceToken: null, order: 'asc', count: 1000 } as const;

export function environmentsOf(deps: PortalDeps, request: FastifyRequest): Promise<Environment[]> {
  return deps.tenancy.listEnvironments(sessionOf(request).user.organizationToken, ALL);
}

/** The frame of a page: its title, navigation entry, and the environment and organization switchers. */
export async function frameFor(deps: PortalDeps, request: FastifyRequest, frame: Omit<PageFrame, 'environments' | 'organizations'>): Promise<PageFrame> {
  const [environments, organizations] = await Promise.all([
    environmentsOf(deps, request),
    deps.portalUsers.activeMembershipsOf(sessionOf(request).user.personToken),
  ]);
  return { ...frame, environments, organizations };
}

/** Fixed confirmation texts chosen by a redirect's `?done=` (never text from the URL itself). */
const DONE: Record<string, string> = {
  created: 'Created.',
  renamed: 'Renamed.',
  not_again: 'That form was already used: the access secret it created is not shown again.',
  not_again_user: 'That form was already used: the password it created is not shown again.',
  revoked: 'The access secret was revoked. Requests using it are refused from now on.',
  updated: 'Saved.',
  redacted: 'Redacted.',
  removed: 'Removed.',
  retained: 'Retained.',
  totp_on: 'Two-step verification is on. You will be asked for a code at every sign-in.',
  totp_off: 'Two-step verification is off.',
  totp_changed: 'Two-step verification now uses your new authenticator app; codes of the previous one no longer work.',
  not_again_invitation: 'That form was already used: the invitation link it created is not shown again.',
  unlocked: 'The account was unlocked: it may sign in again.',
  member_removed: 'The member was removed from this organization.',
  invitation_cancelled: 'The invitation was cancelled: its link no longer works.',
  password: 'Your password was changed. Other sessions were signed out.',
  disabled: 'The user was disabled and signed out.',
  enabled: 'The user was enabled.',
  role: 'The role was changed.',
  two_step_required: 'Your organization requires two-step verification of every member: set it up below to continue.',
  two_step_policy: 'The two-step verification requirement was saved.',
};

/** The confirmation a redirect chose with `?<parameter>=<name>`: one of `texts`, never text from the URL. */
export function noticeFrom(request: FastifyRequest, parameter: string, texts: Readonly<Record<string, string>>): PageFrame['notice'] {
  const done = (request.query as Record<string, unknown> | undefined)?.[parameter];
  const text = typeof done === 'string' && Object.hasOwn(texts, done) ? texts[done] : undefined;
  return text === undefined ? null : { kind: 'ok', text };
}

export function doneNotice(request: FastifyRequest): PageFrame['notice'] {
  return noticeFrom(request, 'done', DONE);
}
