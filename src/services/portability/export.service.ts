import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type * as openpgp from 'openpgp';
import { openpgpModule } from './openpgp-module.js';
import type { CardAccessRecord } from '../../domain/card-access.js';
import type { Clock } from '../../domain/clock.js';
import type { Environment } from '../../domain/environment.js';
import { AppError } from '../../domain/errors.js';
import { exportStateAt, sameActor, type ExportActor, type ExportFilter, type ExportState, type PaymentMethodExport } from '../../domain/payment-method-export.js';
import type { PaymentMethod } from '../../domain/payment-method.js';
import { orderedToken, TOKEN_LENGTH } from '../../domain/tokens.js';
import type { StoreAccess } from '../../store/store-access.js';
import type { AuditActor, AuditService } from '../audit.service.js';
import type { PaymentMethodSealer } from '../payment-method-sealer.js';
import { exportLineOf, needsOpening } from './export-record.js';
import { readRecipientKey } from './export-recipient.js';
import type { ImportKeyService } from './import-keys.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'cardAccess' | 'paymentMethodExports' | 'paymentMethods';

/** How long a request waits for its approval, and an approved export for its download. */
export interface ExportWindows {
  approvalMs: number;
  downloadMs: number;
}

export const DEFAULT_EXPORT_WINDOWS: ExportWindows = { approvalMs: 24 * 3600_000, downloadMs: 24 * 3600_000 };

/** Payment methods read per statement while the file streams: the most plaintext held at once. */
const PAGE = 200;

/** A person taking a step, and from where (for the audit log). */
export type ExportCaller = ExportActor & { address: string | null };

/** An export as a reader sees it: its state with expiry applied. */
export type ExportView = PaymentMethodExport & { shownState: ExportState };

/** The card access record of one payment method opened for an export's file (docs/audit.md). */
function exportAccess(environment: Environment, paymentMethodToken: string, exportToken: string, caller: ExportCaller, at: string): CardAccessRecord {
  return { environmentKey: environment.key, paymentMethodToken, operation: 'export', objectType: 'payment_method_export', objectId: exportToken, actorType: caller.type, actor: caller.id, requestId: null, createdAt: at };
}

function notFound(): AppError {
  return new AppError({ key: 'errors.export_not_found', message: 'Unable to find the specified export.' });
}

/**
 * Exports under dual control (docs/portability.md, "Exporting"): one person requests an export
 * of the environment's payment methods to a recipient's OpenPGP key; a different person approves
 * it; it is then downloaded once. The file is the import format (JSON Lines), made as it is
 * downloaded, page by page, encrypted to the recipient and signed with the environment's key as
 * it streams: the vault is never held whole in memory, and no card touches disk, clear or not.
 * Every step is in the organization's audit log, the download with the number of methods.
 */
export class ExportService {
  constructor(
    private readonly store: StoreAccess<Uses>,
    private readonly sealer: PaymentMethodSealer,
    private readonly keys: ImportKeyService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly windows: ExportWindows = DEFAULT_EXPORT_WINDOWS,
  ) {}

  /** A new request, pending a second person's approval. */
  async request(environment: Environment, caller: ExportCaller, input: { filter: ExportFilter; recipientPublicKey: unknown }): Promise<ExportView> {
    const recipient = await readRecipientKey(input.recipientPublicKey);
    const now = this.clock.now();
    const at = now.toISOString();
    const job: PaymentMethodExport = {
      token: orderedToken(TOKEN_LENGTH.item),
      environmentKey: environment.key,
      state: 'pending',
      filter: input.filter,
      recipientPublicKey: recipient.armored,
      recipientFingerprint: recipient.fingerprint,
      recipientUserIds: recipient.userIds,
      requestedBy: { type: caller.type, id: caller.id },
      approvedBy: null,
      downloadedBy: null,
      closedBy: null,
      paymentMethods: null,
      error: null,
      expiresAt: new Date(now.getTime() + this.windows.approvalMs).toISOString(),
      createdAt: at,
      approvedAt: null,
      downloadedAt: null,
      closedAt: null,
      updatedAt: at,
    };
    await this.store.repos.paymentMethodExports.insert(job);
    await this.record(environment, caller, 'payment_method_export.request', job, { recipient_fingerprint: job.recipientFingerprint, filter: JSON.stringify(job.filter), expires_at: job.expiresAt });
    return this.view(job);
  }

  async find(environment: Environment, token: string): Promise<ExportView> {
    const job = await this.store.repos.paymentMethodExports.find(environment.key, token);
    if (job === undefined) throw notFound();
    return this.view(job);
  }

  async list(environment: Environment): Promise<ExportView[]> {
    return (await this.store.repos.paymentMethodExports.list(environment.key, 100)).map((job) => this.view(job));
  }

  /**
   * The second person's approval. Refused (and the refusal audited) when the approver is the
   * requester; refused when the request expired or is not pending. Opens the download window.
   */
  async approve(environment: Environment, token: string, caller: ExportCaller): Promise<ExportView> {
    const job = await this.find(environment, token);
    if (sameActor(job.requestedBy, caller)) {
      await this.record(environment, caller, 'payment_method_export.approve_refused', job, { reason: 'requester' });
      throw new AppError({ key: 'errors.forbidden', message: 'An export must be approved by someone other than the person who requested it (dual control).' });
    }
    const now = this.clock.now();
    const approved = await this.store.repos.paymentMethodExports.transition(environment.key, token, {
      from: 'pending',
      to: 'approved',
      unexpiredAt: now.toISOString(),
      approvedBy: { type: caller.type, id: caller.id },
      expiresAt: new Date(now.getTime() + this.windows.downloadMs).toISOString(),
      at: now.toISOString(),
    });
    if (approved === undefined) throw await this.whyNot(environment, token, 'pending');
    await this.record(environment, caller, 'payment_method_export.approve', approved, { requested_by: approved.requestedBy.id, recipient_fingerprint: approved.recipientFingerprint, expires_at: approved.expiresAt });
    return this.view(approved);
  }

  /**
   * The requester withdraws their own pending export: it never runs. Anyone else is refused (and
   * the refusal audited): another admin rejects instead, so the log says which of the two it was.
   */
  async cancel(environment: Environment, token: string, caller: ExportCaller): Promise<ExportView> {
    const job = await this.find(environment, token);
    if (!sameActor(job.requestedBy, caller)) {
      await this.record(environment, caller, 'payment_method_export.cancel_refused', job, { reason: 'not_requester' });
      throw new AppError({ key: 'errors.forbidden', message: 'Only the person who requested an export can cancel it; another admin can reject it.' });
    }
    return this.close(environment, token, caller, 'cancelled');
  }

  /**
   * A second person refuses a pending export (dual control, as for approval): it never runs. The
   * requester is refused (and the refusal audited): they cancel their own request instead.
   */
  async reject(environment: Environment, token: string, caller: ExportCaller): Promise<ExportView> {
    const job = await this.find(environment, token);
    if (sameActor(job.requestedBy, caller)) {
      await this.record(environment, caller, 'payment_method_export.reject_refused', job, { reason: 'requester' });
      throw new AppError({ key: 'errors.forbidden', message: 'An export must be rejected by someone other than the person who requested it; its requester can cancel it.' });
    }
    return this.close(environment, token, caller, 'rejected');
  }

  /** Ends a pending export without it running: one conditional write, so it races approval safely. */
  private async close(environment: Environment, token: string, caller: ExportCaller, to: 'cancelled' | 'rejected'): Promise<ExportView> {
    const at = this.clock.now().toISOString();
    const closed = await this.store.repos.paymentMethodExports.transition(environment.key, token, { from: 'pending', to, unexpiredAt: at, closedBy: { type: caller.type, id: caller.id }, at });
    if (closed === undefined) throw await this.whyNot(environment, token, 'pending');
    await this.record(environment, caller, to === 'cancelled' ? 'payment_method_export.cancel' : 'payment_method_export.reject', closed, {
      requested_by: closed.requestedBy.id,
      recipient_fingerprint: closed.recipientFingerprint,
      closed_at: at,
    });
    return this.view(closed);
  }

  /**
   * The one download: claims the approved export (one conditional write, so a second download,
   * even racing, is refused), then streams the file. The export ends `downloaded`, with the number
   * of methods, once the last byte is handed over; `failed` if the stream stops before (it is
   * spent all the same: a new request is needed). `done` settles with the export as it ended.
   */
  async download(environment: Environment, token: string, caller: ExportCaller): Promise<{ job: ExportView; file: Readable; done: Promise<ExportView> }> {
    await this.find(environment, token);
    const at = this.clock.now().toISOString();
    const claimed = await this.store.repos.paymentMethodExports.transition(environment.key, token, { from: 'approved', to: 'downloading', unexpiredAt: at, downloadedBy: { type: caller.type, id: caller.id }, at });
    if (claimed === undefined) throw await this.whyNot(environment, token, 'approved');
    let file: Readable;
    const counted = { methods: 0 };
    try {
      file = await this.encrypted(environment, claimed, caller, counted);
    } catch (error) {
      await this.finish(environment, caller, claimed, counted.methods, 'The file could not be made');
      throw error;
    }
    const done = new Promise<ExportView>((resolve) => {
      let settled = false;
      const settle = (error: string | null) => {
        if (settled) return;
        settled = true;
        void this.finish(environment, caller, claimed, counted.methods, error)
          .catch(() => undefined)
          .then(() => this.find(environment, token))
          .then(resolve, () => resolve(this.view(claimed)));
      };
      file.once('end', () => settle(null));
      file.once('error', () => settle('The download stopped before the end of the file'));
      file.once('close', () => settle(file.readableEnded ? null : 'The download stopped before the end of the file'));
    });
    return { job: this.view(claimed), file, done };
  }

  /** The file: JSON Lines of the chosen methods, encrypted to the recipient and signed, as it streams. */
  private async encrypted(environment: Environment, job: PaymentMethodExport, caller: ExportCaller, counted: { methods: number }): Promise<Readable> {
    const pgp = await openpgpModule();
    const recipient = await pgp.readKey({ armoredKey: job.recipientPublicKey });
    const signingKey = await this.keys.privateKey(environment.key);
    const plain = Readable.from(this.lines(environment, job, caller, counted), { objectMode: false });
    const message = await pgp.createMessage({ binary: Readable.toWeb(plain) as unknown as openpgp.NodeWebStream<Uint8Array> });
    const encrypted = await pgp.encrypt({ message, encryptionKeys: recipient, signingKeys: signingKey, format: 'binary' });
    return Readable.fromWeb(encrypted as unknown as NodeReadableStream<Uint8Array>);
  }

  /** The lines, a page of methods at a time (the plaintext of one page at most is held). */
  private async *lines(environment: Environment, job: PaymentMethodExport, caller: ExportCaller, counted: { methods: number }): AsyncGenerator<Buffer> {
    const filter: ExportFilter = job.filter;
    const states = filter.storageStates.length === 0 ? ['retained', 'cached'] : filter.storageStates;
    let sinceSeq: number | null = null;
    for (;;) {
      const methods: PaymentMethod[] = await this.store.repos.paymentMethods.list(
        environment.key,
        { states, metadata: filter.metadata, createdFrom: filter.createdFrom, createdTo: filter.createdTo },
        { sinceSeq, order: 'asc', count: PAGE },
      );
      if (methods.length === 0) return;
      // Every card whose number leaves in the file is an opening of card data (docs/audit.md):
      // recorded before its page is opened, a page in one commit.
      const opened = methods.filter(needsOpening);
      if (opened.length > 0) {
        const at = this.clock.now().toISOString();
        await this.store.unitOfWork(async (repos) => {
          for (const method of opened) await repos.cardAccess.record(exportAccess(environment, method.token, job.token, caller, at));
        });
      }
      let chunk = '';
      for (const method of methods) {
        const line = exportLineOf(method, needsOpening(method) ? await this.sealer.open(method) : null);
        if (line === null) continue;
        chunk += `${JSON.stringify(line)}\n`;
        counted.methods += 1;
      }
      if (chunk !== '') yield Buffer.from(chunk, 'utf8');
      if (methods.length < PAGE) return;
      const last = methods[methods.length - 1] as PaymentMethod;
      const position = await this.store.repos.paymentMethods.position(environment.key, last.token);
      if (position === undefined) return;
      sinceSeq = position.seq;
    }
  }

  private async finish(environment: Environment, caller: ExportCaller, job: PaymentMethodExport, methods: number, error: string | null): Promise<void> {
    const at = this.clock.now().toISOString();
    const ended = await this.store.repos.paymentMethodExports.transition(environment.key, job.token, {
      from: 'downloading',
      to: error === null ? 'downloaded' : 'failed',
      paymentMethods: methods,
      ...(error === null ? {} : { error }),
      at,
    });
    if (ended === undefined) return;
    await this.record(environment, caller, error === null ? 'payment_method_export.download' : 'payment_method_export.download_failed', ended, {
      payment_methods: methods,
      requested_by: ended.requestedBy.id,
      approved_by: ended.approvedBy?.id ?? null,
      recipient_fingerprint: ended.recipientFingerprint,
    });
  }

  /** Why a step found the export in another state than `wanted`: expired, spent, not yet approved. */
  private async whyNot(environment: Environment, token: string, wanted: 'pending' | 'approved'): Promise<AppError> {
    const job = await this.find(environment, token);
    const state = job.shownState;
    if (state === 'cancelled' || state === 'rejected') {
      const by = job.closedBy === null ? '' : ` by ${job.closedBy.type === 'user' ? job.closedBy.id : `API secret ${job.closedBy.id}`}`;
      return new AppError({ key: 'errors.export_closed', message: `This export was ${state}${by} at ${job.closedAt ?? job.updatedAt}: it never runs; request a new one.` });
    }
    if (state === 'expired') return new AppError({ key: 'errors.export_expired', message: wanted === 'pending' ? 'This export request expired before it was approved; request a new one.' : 'This export expired before it was downloaded; request a new one.' });
    if (state === 'pending') return new AppError({ key: 'errors.export_not_approved', message: 'This export has not been approved yet: another admin must approve it first.' });
    if (state === 'downloading' || state === 'downloaded' || state === 'failed') return new AppError({ key: 'errors.export_gone', message: 'This export was downloaded already (an export is downloaded once); request a new one.' });
    return new AppError({ key: 'errors.export_not_pending', message: 'This export was approved already: it is no longer pending.' });
  }

  private view(job: PaymentMethodExport): ExportView {
    return { ...job, shownState: exportStateAt(job, this.clock.now().toISOString()) };
  }

  private record(environment: Environment, caller: ExportCaller, action: string, job: PaymentMethodExport, details: Record<string, string | number | boolean | null>): Promise<void> {
    const actor: AuditActor = { type: caller.type, id: caller.id, address: caller.address };
    return this.audit.record(actor, { organizationToken: environment.organizationToken, action, objectType: 'payment_method_export', objectId: job.token, environmentKey: environment.key, details });
  }
}
