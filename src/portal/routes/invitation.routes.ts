import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../domain/errors.js';
import type { OpenInvitation } from '../../services/portal-invitations.js';
import { formOf, type PortalDeps } from '../context.js';
import { html, type SafeHtml } from '../html.js';
import { barePage, sendPage, when } from '../layout.js';
import { issueSignInToken, lockoutHint, signInTokenMatches, spendSignInAttempt, startSession, tooManyAttempts } from '../sign-in-steps.js';

type SecretParams = { Params: { secret: string } };

const TITLE = 'Join an organization on Coffer';

/**
 * One form whoever holds the link sees, whether the invited email has a Coffer account or not:
 * the page does not tell (docs/portal.md "Adding a team member").
 */
function invitationForm(reply: FastifyReply, secret: string, open: OpenInvitation, hint: SafeHtml | null = null, minLength = 12): SafeHtml {
  const { invitation, organizationName } = open;
  return html`<p>You are invited to the Coffer portal of <strong>${organizationName}</strong> as <strong>${invitation.role}</strong>. The invitation works once, until ${when(invitation.expiresAt)}.</p>
<form class="stack" method="post" action="/portal/invitations/${secret}">
  <input type="hidden" name="_csrf" value="${issueSignInToken(reply)}">
  <div class="field"><label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" readonly value="${invitation.email}"></div>
  <div class="field"><label for="password">Password</label>
  <p class="hint" id="password-hint">If you already use the Coffer portal with this email, type its password. If not, choose one (at least ${minLength} characters): it is yours, nobody else is shown it.</p>
  <input id="password" name="password" type="password" autocomplete="current-password" aria-describedby="password-hint" required></div>
  <div class="field"><label for="password-again">Repeat the password</label>
  <p class="hint" id="password-again-hint">Only when you are choosing a new password.</p>
  <input id="password-again" name="password_again" type="password" autocomplete="new-password" aria-describedby="password-again-hint"></div>
  <div class="field"><label for="code">Authentication code</label>
  <p class="hint" id="code-hint">Only if your account has two-step verification: 6 digits from your authenticator app.</p>
  <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" aria-describedby="code-hint"></div>
  <button class="primary" type="submit">Join ${organizationName}</button>
</form>${hint}`;
}

/**
 * Invitation links (public: the secret in the link is the credential, once): the invited person
 * joins with their own password, or chooses one when the email has no account yet.
 */
export function invitationRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  const open = { config: { portal: 'public' as const } };

  portal.get<SecretParams>('/invitations/:secret', open, async (request, reply) => {
    const invitation = await deps.portalUsers.invitations.open(request.params.secret);
    return sendPage(reply, barePage(TITLE, invitationForm(reply, request.params.secret, invitation, null, deps.portalUsers.policy.passwordMinLength)));
  });

  portal.post<SecretParams>('/invitations/:secret', open, async (request, reply) => {
    const secret = request.params.secret;
    const invitation = await deps.portalUsers.invitations.open(secret);
    const form = formOf(request);
    if (!signInTokenMatches(request, form._csrf)) {
      return sendPage(reply, barePage(TITLE, invitationForm(reply, secret, invitation, null, deps.portalUsers.policy.passwordMinLength), { kind: 'error', text: 'The form has expired. Please try again.' }), 403);
    }
    const wait = await spendSignInAttempt(deps, request, invitation.invitation.email);
    if (wait !== null) return tooManyAttempts(reply, wait, TITLE, invitationForm(reply, secret, invitation, null, deps.portalUsers.policy.passwordMinLength));
    const answer = { password: form.password ?? '', passwordAgain: form.password_again ?? '', code: form.code ?? '' };
    let member;
    try {
      member = await deps.portalUsers.acceptInvitation(secret, answer, request.ip ?? null);
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 422) throw error;
      return sendPage(reply, barePage(TITLE, invitationForm(reply, secret, invitation, null, deps.portalUsers.policy.passwordMinLength), { kind: 'error', text: error.message }), 422);
    }
    if (member === null) {
      return sendPage(reply, barePage(TITLE, invitationForm(reply, secret, invitation, lockoutHint(deps.portalUsers.lockout.policy), deps.portalUsers.policy.passwordMinLength), { kind: 'error', text: 'Invalid password or authentication code' }), 401);
    }
    await deps.audit.record(
      { type: 'user', id: member.email, address: request.ip ?? null },
      { organizationToken: member.organizationToken, action: 'user.join', objectType: 'user', objectId: member.token, details: { email: member.email, role: member.role } },
    );
    await startSession(deps, request, reply, member, 'active');
    return reply.code(303).header('Location', '/portal/').send();
  });
}
