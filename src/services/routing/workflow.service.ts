import { AppError, type ErrorEntry } from '../../domain/errors.js';
import type { Clock } from '../../domain/clock.js';
import type { StoreHandle } from '../../store/database.js';
import type { GatewayRecord, GatewayService } from '../gateway.service.js';
import { WorkflowsRepo, type WorkflowPatch, type WorkflowRow } from '../../store/repositories/workflows.repo.js';
import type { RuleTarget, Workflow, WorkflowDefinition, WorkflowRetryMode, WorkflowRule } from './workflow-definition.js';
import { gatewayPlaces, WORKFLOW_KEY, workflowErrors } from './workflow-validation.js';
import type { Environment } from '../../domain/environment.js';

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
  private readonly workflows: WorkflowsRepo;

  constructor(
    store: StoreHandle,
    private readonly gateways: GatewayService,
    private readonly clock: Clock,
  ) {
    this.workflows = new WorkflowsRepo(store.db);
  }

  async create(environment: Environment, change: WorkflowChange): Promise<Workflow> {
    const errors: ErrorEntry[] = [];
    if (change.key === undefined) errors.push({ key: 'errors.blank', attribute: 'key', message: "Key can't be blank" });
    else if (!WORKFLOW_KEY.test(change.key)) errors.push({ key: 'errors.invalid', attribute: 'key', message: 'Key must be 1 to 64 lower-case letters, digits, _ and -, starting with a letter or digit' });
    if (change.fields.name === undefined) errors.push({ key: 'errors.blank', attribute: 'name', message: "Name can't be blank" });
    if (change.fields.default_target === undefined && !change.shapeErrors.includes('default_target')) {
      errors.push({ key: 'errors.blank', attribute: 'default_target', message: "Default target can't be blank" });
    }
    const definition: WorkflowDefinition = {
      name: change.fields.name ?? '',
      rules: change.fields.rules ?? [],
      default_target: change.fields.default_target ?? { gateway_token: '' },
      backup_gateway_tokens: change.fields.backup_gateway_tokens ?? [],
      retry_mode: change.fields.retry_mode ?? 'outage_only',
      success_rate_routing: change.fields.success_rate_routing ?? false,
    };
    await this.check(environment, definition, change.shapeErrors, errors);
    const now = this.clock.now().toISOString();
    const inserted = await this.workflows.insert({
      environment_key: environment.key,
      key: change.key as string,
      ...storedDefinition(definition),
      is_default: change.isDefault === true ? 1 : 0,
      created_at: now,
      updated_at: now,
    });
    if (!inserted) throw new AppError({ key: 'errors.invalid', attribute: 'key', message: 'A workflow with this key already exists in this environment' });
    return this.show(environment, change.key as string);
  }

  async list(environment: Environment): Promise<Workflow[]> {
    return (await this.workflows.list(environment.key, MAX_WORKFLOWS)).map(workflowOf);
  }

  async show(environment: Environment, key: string): Promise<Workflow> {
    const row = await this.workflows.find(environment.key, key);
    if (row === undefined) throw workflowNotFound();
    return workflowOf(row);
  }

  /** The environment's default workflow, or null. */
  async defaultWorkflow(environment: Environment): Promise<Workflow | null> {
    const row = await this.workflows.findDefault(environment.key);
    return row === undefined ? null : workflowOf(row);
  }

  /** Replaces the fields the body names; the whole result is validated before anything is written. */
  async update(environment: Environment, key: string, change: WorkflowChange): Promise<Workflow> {
    const current = await this.show(environment, key);
    const errors: ErrorEntry[] = [];
    if (change.key !== undefined && change.key !== key) errors.push({ key: 'errors.invalid', attribute: 'key', message: 'The key of a workflow cannot be changed' });
    const definition: WorkflowDefinition = {
      name: change.fields.name ?? current.name,
      rules: change.fields.rules ?? current.rules,
      default_target: change.fields.default_target ?? current.default_target,
      backup_gateway_tokens: change.fields.backup_gateway_tokens ?? current.backup_gateway_tokens,
      retry_mode: change.fields.retry_mode ?? current.retry_mode,
      success_rate_routing: change.fields.success_rate_routing ?? current.success_rate_routing,
    };
    await this.check(environment, definition, change.shapeErrors, errors);
    const patch: WorkflowPatch = { ...storedDefinition(definition), updated_at: this.clock.now().toISOString() };
    if (change.isDefault !== undefined) patch.is_default = change.isDefault ? 1 : 0;
    if (!(await this.workflows.update(environment.key, key, patch))) throw workflowNotFound();
    return this.show(environment, key);
  }

  async remove(environment: Environment, key: string): Promise<Workflow> {
    const current = await this.show(environment, key);
    if (!(await this.workflows.remove(environment.key, key, this.clock.now().toISOString()))) throw workflowNotFound();
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
      else if (gateway.row.state === 'redacted') errors.push({ key: 'errors.invalid', attribute: 'gateway_token', message: `${place} names a gateway that has been redacted` });
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

function storedDefinition(definition: WorkflowDefinition) {
  return {
    name: definition.name,
    rules: JSON.stringify(definition.rules),
    default_target: JSON.stringify(definition.default_target),
    backup_gateway_tokens: JSON.stringify(definition.backup_gateway_tokens),
    retry_mode: definition.retry_mode,
    success_rate_routing: definition.success_rate_routing ? 1 : 0,
  };
}

export function workflowOf(row: WorkflowRow): Workflow {
  return {
    key: row.key,
    name: row.name,
    rules: JSON.parse(row.rules) as WorkflowRule[],
    default_target: JSON.parse(row.default_target) as RuleTarget,
    backup_gateway_tokens: JSON.parse(row.backup_gateway_tokens) as string[],
    retry_mode: row.retry_mode as WorkflowRetryMode,
    success_rate_routing: row.success_rate_routing === 1,
    is_default: row.is_default === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
