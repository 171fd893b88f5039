import type { Environment, EnvironmentPatch, NewEnvironment } from '../../domain/environment.js';
import type { PageRequest } from '../repositories/page.js';

/**
 * Single-query primitives over `environments`. The events of their changes are recorded by the
 * services that decide them (docs/events.md).
 */
export interface EnvironmentsRepository {
  insert(environment: NewEnvironment): Promise<void>;
  find(key: string): Promise<Environment | undefined>;
  /** Where the environment stands in its organization's list (a page's `since_token`); undefined when it is not there. */
  positionIn(organizationToken: string, key: string): Promise<number | undefined>;
  listByOrganization(organizationToken: string, page: PageRequest): Promise<Environment[]>;
  /** Applies `patch`; false when there is no such environment. */
  update(key: string, patch: EnvironmentPatch): Promise<boolean>;
  /** Stores a first signing secret unless one exists (two nodes racing keep one); false when one did. */
  setSigningSecretIfAbsent(key: string, sealed: string): Promise<boolean>;
  /** Replaces the sealed signing secret of callbacks (docs/events.md); false when there is no such environment. The secret is never in an event. */
  setSigningSecret(key: string, sealed: string, updatedAt: string): Promise<boolean>;
}
