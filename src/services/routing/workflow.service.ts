import { NO_REQUEST, type RequestMeta } from '../../domain/request.js';
import { AppError, type ErrorEntry } from '../../domain/errors.js';
import type { Clock } from '../../domain/clock.js';
import type { StoreAccess } from '../../store/store-access.js';
import type { Repositories } from '../../store/repositories.js';
import type { GatewayRecord, GatewayService } from '../gateway.service.js';
import type { EventType } from '../../domain/event-types.js';
import type { Workflow, WorkflowDefinition, WorkflowPatch } from '../../domain/workflow.js';
import { gatewayPlaces, WORKFLOW_KEY, workflowErrors } from './workflow-validation.js';
import type { Environment } from '../../domain/environment.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'journal' | 'workflows';

/** What the admin API passes in: the fields a body named, and the shape errors its parser found. */
export interface WorkflowChange {
  key?: string | undefined;
  isDefault?: boolean | undefined;
  fields: Partial<WorkflowDefinition>;
  shapeErrors: string[];
}

/** An environment has a handful of workflows; the list is not paged beyond this. */
export const MAX_WORKFLOWS = 100;

export function workflowNotFound(): AppError {
  return new AppError({ key: 'errors.workflow_not_found', message: 'Unable to find the specified workflow.' });
}

/** Routing workflows of an environment (docs/routing.md): create, list, show, update, remove, the default. */
export class WorkflowService {
  private readonly repos: Pick<Repositories, Uses>;

  constructor(
    private readonly store: StoreAccess<Uses>,
    private readonly gateways: GatewayService,
    private readonly clock: Clock,
  ) {
    this.repos = store.repos;
  }

  async create(environment: Environment, change: WorkflowChange, request: RequestMeta = NO_REQUEST): Promise<Workflow> {
    const errors: ErrorEntry[] = [];
    if (change.key === undefined) errors.push({ key: 'errors.blank', attribute: 'key', message: "Key can't be blank" });
    else if (!WORKFLOW_KEY.test(change.key)) errors.push({ key: 'errors.invalid', attribute: 'key', message: 'Key must be 1 to 64 lower-case letters, digits, _ and -, starting with a letter or digit' });
    if (change.fields.name === undefined) errors.push({ key: 'errors.blank', attribute: 'name', message: "Name can't be blank" });
    if (change.fields.defaultTarget === undefined && !change.shapeErrors.includes('default_target')) {
      errors.push({ key: 'errors.blank', attribute: 'default_target', message: "Default target can't be blank" });
    }
    const definition: WorkflowDefinition = {
      name: change.fields.name ?? '',
      rules: change.fields.rules ?? [],
      defaultTarget: change.fields.defaultTarget ?? { gateway_token: '' },
      backupGatewayTokens: change.fields.backupGatewayTokens ?? [],
      retryMode: change.fields.retryMode ?? 'outage_only',
      successRateRouting: change.fields.successRateRouting ?? false,
    };
    await this.check(environment, definition, change.shapeErrors, errors);
    const now = this.clock.now().toISOString();
    const key = change.key as string;
    const inserted = await this.store.unitOfWork(async (repos) => {
      const added = await repos.workflows.insert({ environmentKey: environment.key, key, ...definition, isDefault: change.isDefault === true, createdAt: now, updatedAt: now });
      if (added) await recordChange(repos, environment, 'AddWorkflow', key, now);
      return added;
    }, { environment, request });
    if (!inserted) throw new AppError({ key: 'errors.invalid', attribute: 'key', message: 'A workflow with this key already exists in this environment' });
    return this.show(environment, change.key as string);
  }

  async list(environment: Environment): Promise<Workflow[]> {
    return this.repos.workflows.list(environment.key, MAX_WORKFLOWS);
  }

  async show(environment: Environment, key: string): Promise<Workflow> {
    const workflow = await this.repos.workflows.find(environment.key, key);
    if (workflow === undefined) throw workflowNotFound();
    return workflow;
  }

  /** The environment's default workflow, or null. */
  async defaultWorkflow(environment: Environment): Promise<Workflow | null> {
    return (await this.repos.workflows.findDefault(environment.key)) ?? null;
  }

  /** Replaces the fields the body names; the whole result is validated before anything is written. */
  async update(environment: Environment, key: string, change: WorkflowChange, request: RequestMeta = NO_REQUEST): Promise<Workflow> {
    const current = await this.show(environment, key);
    const errors: ErrorEntry[] = [];
    if (change.key !== undefined && change.key !== key) errors.push({ key: 'errors.invalid', attribute: 'key', message: 'The key of a workflow cannot be changed' });
    const definition: WorkflowDefinition = {
      name: change.fields.name ?? current.name,
      rules: change.fields.rules ?? current.rules,
      defaultTarget: change.fields.defaultTarget ?? current.defaultTarget,
      backupGatewayTokens: change.fields.backupGatewayTokens ?? current.backupGatewayTokens,
      retryMode: change.fields.retryMode ?? current.retryMode,
      successRateRouting: change.fields.successRateRouting ?? current.successRateRouting,
    };
    await this.check(environment, definition, change.shapeErrors, errors);
    const patch: WorkflowPatch = { ...definition, updatedAt: this.clock.now().toISOString() };
    if (change.isDefault !== undefined) patch.isDefault = change.isDefault;
    const updated = await this.store.unitOfWork(async (repos) => {
      const changed = await repos.workflows.update(environment.key, key, patch);
      if (changed) await recordChange(repos, environment, 'UpdateWorkflow', key, patch.updatedAt);
      return changed;
    }, { environment, request });
    if (!updated) throw workflowNotFound();
    return this.show(environment, key);
  }

  async remove(environment: Environment, key: string, request: RequestMeta = NO_REQUEST): Promise<Workflow> {
    const current = await this.show(environment, key);
    const removed = await this.store.unitOfWork(async (repos) => {
      const at = this.clock.now().toISOString();
      const changed = await repos.workflows.remove(environment.key, key);
      if (changed) await recordChange(repos, environment, 'RemoveWorkflow', key, at);
      return changed;
    }, { environment, request });
    if (!removed) throw workflowNotFound();
    return current;
  }

  private async findGateway(environment: Environment, token: string): Promise<GatewayRecord | null> {
    try {
      return await this.gateways.show(environment, token);
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /** Every error of the definition, the gateways it names included; throws them all as one 422. */
  private async check(environment: Environment, definition: WorkflowDefinition, shapeErrors: string[], errors: ErrorEntry[]): Promise<void> {
    for (const path of shapeErrors) errors.push({ key: 'errors.invalid', attribute: path, message: `${path} must name either a gateway_token or a split, not both or neither` });
    // A target already reported (missing, or neither gateway nor split) is not reported again as an empty one.
    const reported = new Set(errors.map((error) => error.attribute));
    errors.push(...workflowErrors(definition).filter((error) => !reported.has(error.attribute)));
    const kinds = new Set<boolean>();
    for (const { place, token } of gatewayPlaces(definition)) {
      if (token === '') continue;
      const gateway = await this.findGateway(environment, token);
      if (gateway === null) errors.push({ key: 'errors.invalid', attribute: 'gateway_token', message: `${place} is not a gateway of this environment` });
      else if (gateway.state === 'redacted') errors.push({ key: 'errors.invalid', attribute: 'gateway_token', message: `${place} names a gateway that has been redacted` });
      else kinds.add(gateway.definition.test);
    }
    // One card goes down the whole chain: test cards only go to test gateways and real ones to real gateways.
    if (kinds.size > 1) errors.push({ key: 'errors.invalid', attribute: 'gateway_token', message: 'The gateways of a workflow must be all test gateways or all production gateways' });
    if (errors.length > 0) throw new AppError(errors);
  }
}

export function isNotFound(error: unknown): boolean {
  return error instanceof AppError && error.status === 404;
}

/** Records a change of a workflow in its unit of work (docs/events.md). */
function recordChange(repos: Pick<Repositories, 'journal'>, environment: Environment, eventType: EventType, key: string, at: string): Promise<void> {
  return repos.journal.record({ environmentKey: environment.key, eventType, objectType: 'workflow', objectKey: key, at });
}
