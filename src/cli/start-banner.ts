import type { InitResult } from '../services/tenancy.service.js';
import type { CreatedUser } from '../services/portal-users.service.js';

/** What a fresh installation hands its operator once: the first credentials and the portal owner's login. */
export type FirstCredentials = InitResult & { owner: CreatedUser | null };

/**
 * The credentials block `serve` (on an empty database) and `init` print once. The README quotes
 * it line for line (test/e2e/readme-walkthrough.test.ts compares them).
 */
export function credentialsBlock(init: FirstCredentials): string[] {
  return [
    'Coffer initialised an empty database. Save these now: the access secret and the password are not shown again.',
    `  organization_token  ${init.organization_token}`,
    `  environment_key     ${init.environment_key}`,
    `  access_secret_key   ${init.access_secret_key}`,
    `  access_secret       ${init.access_secret}`,
    ...(init.owner === null || init.owner.password === null
      ? []
      : [`  portal_email        ${init.owner.user.email}`, `  portal_password     ${init.owner.password}`]),
  ];
}

export interface StartFacts {
  /** Set when this start initialised an empty database. */
  init: FirstCredentials | null;
  /** Set when this start generated the local master key. */
  generatedMasterKeyFile: string | null;
  /** Set when Coffer made its own TLS material (the CA clients must trust). */
  caPath: string | null;
  /** The portal's address, when the portal is on. */
  portalUrl: string | null;
  url: string;
}

/**
 * Everything `serve` tells its operator at start, as one text written in one piece to stderr,
 * before any log line: logs (JSON on stdout) can come only before or after it, never inside.
 * "Coffer listening on …" is its last line (scripts and the tests wait for it).
 */
export function startBanner(facts: StartFacts): string {
  return [
    ...(facts.init === null ? [] : credentialsBlock(facts.init)),
    ...(facts.generatedMasterKeyFile === null
      ? []
      : [`Generated a local master key: ${facts.generatedMasterKeyFile} (the data cannot be read without it; production sets COFFER_MASTER_KEY)`]),
    ...(facts.caPath === null ? [] : [`Local CA certificate (pass to clients, e.g. curl --cacert): ${facts.caPath}`]),
    ...(facts.portalUrl === null ? [] : [`Merchant portal: ${facts.portalUrl}`]),
    `Coffer listening on ${facts.url}`,
    '',
  ].join('\n');
}
