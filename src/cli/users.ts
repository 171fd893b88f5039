import { Option, type Command } from 'commander';
import type { Core } from '../app.js';
import { AppError } from '../domain/errors.js';
import { isPortalRole, PORTAL_ROLES } from '../domain/portal-roles.js';
import type { AuditEntry } from '../services/audit.service.js';
import { fail, printResult } from './output.js';
import type { PortalMember, PortalPerson } from '../domain/portal-people.js';

type JsonFlag = { json?: boolean };
type OrganizationFlag = { organization?: string };
type WithCore = (work: (core: Core) => Promise<void>) => Promise<void>;

const memberOut = (core: Core, member: PortalMember) => ({
  email: member.email,
  role: member.role,
  organization_token: member.organizationToken,
  two_step: member.totpEnabled,
  disabled: member.disabledAt !== null,
  locked: core.portalUsers.lockout.isLocked(member),
  created_at: member.createdAt,
});

/** The whole of standard input, without its final line break (a password piped in). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

const OPERATOR = { type: 'operator' as const, id: 'cli', address: null };

/** The person's memberships a command acts on: the one of `--organization`, else all of them. */
async function membershipsFor(core: Core, person: PortalPerson, organization: string | undefined): Promise<PortalMember[]> {
  const all = await core.portalUsers.membershipsOf(person.token);
  if (organization === undefined) return all;
  const one = all.filter((member) => member.organizationToken === organization);
  if (one.length === 0) throw new AppError({ key: 'errors.user_not_found', message: 'Unable to find the specified user in that organization.' });
  return one;
}

/** Records an operator's change to a person in each organization they belong to (the operator sees them all). */
async function auditPerson(core: Core, person: PortalPerson, entry: Omit<AuditEntry, 'organizationToken' | 'objectType' | 'objectId'>): Promise<void> {
  for (const member of await core.portalUsers.membershipsOf(person.token)) {
    await core.audit.record(OPERATOR, { organizationToken: member.organizationToken, objectType: 'user', objectId: member.token, ...entry });
  }
}

/**
 * `coffer users create|list|disable|enable|remove|reset-password|reset-two-step|unlock`: portal
 * people and their memberships, for the operator (who sees every organization). Passwords come
 * on standard input (never in argv, which other users of the machine can read); without
 * `--password-stdin` a new person's password is generated and printed once.
 */
export function userCommands(cli: Command, withCore: WithCore): void {
  const json = () => new Option('--json', 'print machine-readable JSON');
  const users = cli.command('users').description('manage merchant portal users and their organizations');

  users.command('create').description('add a member to an organization (a new person gets a password; an existing one keeps theirs)')
    .requiredOption('--organization <token>', 'the organization the person joins').requiredOption('--email <email>', 'their sign-in email')
    .requiredOption('--role <role>', PORTAL_ROLES.join(', ')).option('--password-stdin', 'read the new person\'s password from standard input', false).addOption(json())
    .action(async (opts: JsonFlag & { organization: string; email: string; role: string; passwordStdin: boolean }) => {
      if (!isPortalRole(opts.role)) fail(`--role must be one of ${PORTAL_ROLES.join(', ')} (got ${opts.role})`);
      const password = opts.passwordStdin ? await readStdin() : null;
      await withCore(async (core) => {
        const created = await core.portalUsers.create(opts.organization, { email: opts.email, role: opts.role, password });
        await core.audit.record(OPERATOR, { organizationToken: opts.organization, action: 'user.create', objectType: 'user', objectId: created.user.token, details: { email: created.user.email, role: created.user.role } });
        const out = { ...memberOut(core, created.user), existing_account: created.existing };
        printResult(created.password === null ? out : { ...out, password: created.password }, opts.json === true);
      });
    });

  users.command('list').description('members, one line per person and organization').option('--organization <token>', "only this organization's members").addOption(json()).action((opts: JsonFlag & OrganizationFlag) =>
    withCore(async (core) => {
      const organizations = opts.organization === undefined ? (await core.tenancy.listOrganizations()).map((o) => o.token) : [(await core.tenancy.requireOrganization(opts.organization)).token];
      const members = (await Promise.all(organizations.map((token) => core.portalUsers.list(token)))).flat();
      printResult(members.map((member) => memberOut(core, member)), opts.json === true);
    }));

  for (const [verb, disabled] of [['disable', true], ['enable', false]] as const) {
    users.command(`${verb} <email>`).description(`${verb} the person's membership of --organization, or every membership`).option('--organization <token>', 'only this membership').addOption(json())
      .action((email: string, opts: JsonFlag & OrganizationFlag) =>
        withCore(async (core) => {
          const person = await core.portalUsers.requireByEmail(email);
          const changed: PortalMember[] = [];
          for (const member of await membershipsFor(core, person, opts.organization)) {
            await core.portalUsers.setDisabled(member.token, disabled);
            await core.audit.record(OPERATOR, { organizationToken: member.organizationToken, action: `user.${verb}`, objectType: 'user', objectId: member.token, details: { email: person.email } });
            changed.push((await core.portalUsers.find(member.token)) as PortalMember);
          }
          printResult(changed.map((member) => memberOut(core, member)), opts.json === true);
        }));
  }

  users.command('remove <email>').description('remove the person from one organization (their other memberships stay)').requiredOption('--organization <token>', 'the organization to leave').addOption(json())
    .action((email: string, opts: JsonFlag & { organization: string }) =>
      withCore(async (core) => {
        const person = await core.portalUsers.requireByEmail(email);
        const [member] = await membershipsFor(core, person, opts.organization);
        const removed = await core.portalUsers.remove((member as PortalMember).token);
        await core.audit.record(OPERATOR, { organizationToken: removed.organizationToken, action: 'user.remove', objectType: 'user', objectId: removed.token, details: { email: removed.email, role: removed.role } });
        printResult({ email: removed.email, organization_token: removed.organizationToken, removed: true }, opts.json === true);
      }));

  users.command('reset-password <email>').description('set a new password (every session of the person ends)').option('--password-stdin', 'read the new password from standard input', false).addOption(json())
    .action(async (email: string, opts: JsonFlag & { passwordStdin: boolean }) => {
      const password = opts.passwordStdin ? await readStdin() : null;
      await withCore(async (core) => {
        const person = await core.portalUsers.requireByEmail(email);
        const generated = await core.portalUsers.resetPassword(person.token, password);
        await auditPerson(core, person, { action: 'user.reset_password', details: { email: person.email } });
        printResult({ email: person.email, ...(generated === null ? {} : { password: generated }), sessions_ended: true }, opts.json === true);
      });
    });

  users.command('reset-two-step <email>').description('turn the person\'s two-step verification off (a lost authenticator; every session ends)').addOption(json())
    .action((email: string, opts: JsonFlag) =>
      withCore(async (core) => {
        const person = await core.portalUsers.requireByEmail(email);
        await core.portalUsers.resetTwoStep(person.token);
        await auditPerson(core, person, { action: 'user.totp_disable', details: { email: person.email } });
        printResult({ email: person.email, two_step: false, sessions_ended: true }, opts.json === true);
      }));

  users.command('unlock <email>').description('lift a lockout after failed sign-ins (docs/portal.md "Lockout")').addOption(json())
    .action((email: string, opts: JsonFlag) =>
      withCore(async (core) => {
        const person = await core.portalUsers.requireByEmail(email);
        await core.portalUsers.lockout.unlock(person.token);
        await auditPerson(core, person, { action: 'user.unlock', details: { email: person.email, was_locked: core.portalUsers.lockout.isLocked(person) } });
        printResult({ email: person.email, locked: false }, opts.json === true);
      }));
}
