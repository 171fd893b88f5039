import { Option, type Command } from 'commander';
import type { Core } from '../app.js';
import { isPortalRole, PORTAL_ROLES } from '../domain/portal-roles.js';
import type { PortalUserRow } from '../store/repositories/portal-users.repo.js';
import { fail, printResult } from './output.js';

type JsonFlag = { json?: boolean };
type WithCore = (work: (core: Core) => Promise<void>) => Promise<void>;

const userOut = (row: PortalUserRow) => ({
  email: row.email,
  role: row.role,
  organization_token: row.organization_token,
  two_step: row.totp_enabled === 1,
  disabled: row.disabled_at !== null,
  created_at: row.created_at,
});

/** The whole of standard input, without its final line break (a password piped in). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

const OPERATOR = { type: 'operator' as const, id: 'cli', address: null };

/**
 * `coffer users create|list|disable|enable|reset-password`: portal users, for the operator.
 * Passwords come on standard input (never in argv, which other users of the machine can read);
 * without `--password-stdin` one is generated and printed once.
 */
export function userCommands(cli: Command, withCore: WithCore): void {
  const json = () => new Option('--json', 'print machine-readable JSON');
  const users = cli.command('users').description('manage merchant portal users');

  users.command('create').requiredOption('--organization <token>').requiredOption('--email <email>')
    .requiredOption('--role <role>', PORTAL_ROLES.join(', ')).option('--password-stdin', 'read the password from standard input', false).addOption(json())
    .action(async (opts: JsonFlag & { organization: string; email: string; role: string; passwordStdin: boolean }) => {
      if (!isPortalRole(opts.role)) fail(`--role must be one of ${PORTAL_ROLES.join(', ')} (got ${opts.role})`);
      const password = opts.passwordStdin ? await readStdin() : null;
      await withCore(async (core) => {
        const created = await core.portalUsers.create(opts.organization, { email: opts.email, role: opts.role, password });
        await core.audit.record(OPERATOR, { organizationToken: opts.organization, action: 'user.create', objectType: 'user', objectId: created.user.token, details: { email: created.user.email, role: created.user.role } });
        printResult({ ...userOut(created.user), ...(created.password === null ? {} : { password: created.password }) }, opts.json === true);
      });
    });

  users.command('list').option('--organization <token>').addOption(json()).action((opts: JsonFlag & { organization?: string }) =>
    withCore(async (core) => {
      const organizations = opts.organization === undefined ? (await core.tenancy.listOrganizations()).map((o) => o.token) : [(await core.tenancy.requireOrganization(opts.organization)).token];
      const rows = (await Promise.all(organizations.map((token) => core.portalUsers.list(token)))).flat();
      printResult(rows.map(userOut), opts.json === true);
    }));

  for (const [verb, disabled] of [['disable', true], ['enable', false]] as const) {
    users.command(`${verb} <email>`).addOption(json()).action((email: string, opts: JsonFlag) =>
      withCore(async (core) => {
        const user = await core.portalUsers.requireByEmail(email);
        await core.portalUsers.setDisabled(user.token, disabled);
        await core.audit.record(OPERATOR, { organizationToken: user.organization_token, action: `user.${verb}`, objectType: 'user', objectId: user.token, details: { email: user.email } });
        printResult(userOut((await core.portalUsers.find(user.token)) as PortalUserRow), opts.json === true);
      }));
  }

  users.command('reset-password <email>').option('--password-stdin', 'read the new password from standard input', false).addOption(json())
    .action(async (email: string, opts: JsonFlag & { passwordStdin: boolean }) => {
      const password = opts.passwordStdin ? await readStdin() : null;
      await withCore(async (core) => {
        const user = await core.portalUsers.requireByEmail(email);
        const generated = await core.portalUsers.resetPassword(user.token, password);
        await core.audit.record(OPERATOR, { organizationToken: user.organization_token, action: 'user.reset_password', objectType: 'user', objectId: user.token, details: { email: user.email } });
        printResult({ email: user.email, ...(generated === null ? {} : { password: generated }), sessions_ended: true }, opts.json === true);
      });
    });
}
