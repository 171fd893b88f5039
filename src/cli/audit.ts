import { once } from 'node:events';
import type { Command } from 'commander';
import type { Core } from '../app.js';
import type { ChainVerification } from '../services/audit-chain/chain-verifier.js';
import { fail, printResult } from './output.js';

type JsonFlag = { json?: boolean };
type WithCore = (work: (core: Core) => Promise<void>) => Promise<void>;

/** What `verify` prints: flat, so the text form reads line by line too. */
export function verificationOut(verification: ChainVerification) {
  return {
    ok: verification.ok,
    anchor_position: verification.anchorPosition,
    entries_checked: verification.entriesChecked,
    verified_through: verification.verifiedThrough,
    verified_through_hash: verification.verifiedThroughHash,
    head_position: verification.head.position,
    checkpoints: verification.checkpoints,
    last_checkpoint_position: verification.lastCheckpoint?.position ?? null,
    last_checkpoint_signed_at: verification.lastCheckpoint?.signedAt ?? null,
    problem: verification.problem?.kind ?? null,
    problem_position: verification.problem?.position ?? null,
    problem_entry: verification.problem?.entry === null || verification.problem === null ? null : `${verification.problem.entry.kind} ${verification.problem.entry.seq}`,
    message: verification.problem?.message ?? 'the chain verifies',
  };
}

/** `coffer audit verify|export|checkpoint|prune` (docs/audit.md). */
export function auditCommands(cli: Command, withCore: WithCore, json: () => import('commander').Option): void {
  const audit = cli.command('audit').description('the tamper-evident audit trail: verify, export, checkpoint, prune (docs/audit.md)');

  audit.command('verify').description('walk the hash chain and name the first entry altered, removed or reordered (exit 3 when one is)').addOption(json())
    .action((opts: JsonFlag) => withCore(async (core) => {
      const verification = await core.auditChain.verify();
      printResult(verificationOut(verification), opts.json === true);
      if (!verification.ok) process.exitCode = 3;
    }));

  audit.command('export').description('print every entry as JSON lines, in chain order (for a SIEM)')
    .option('--after <position>', 'only entries after this chain position', '0')
    .action((opts: { after: string }) => {
      const after = Number(opts.after);
      if (!Number.isInteger(after) || after < 0) fail('--after must be a chain position (a whole number)');
      return withCore(async (core) => {
        for await (const entry of core.auditChain.export(after)) {
          // Waits for the pipe to drain: a slow reader holds the walk, not the memory.
          if (!process.stdout.write(`${JSON.stringify(entry)}\n`)) await once(process.stdout, 'drain');
        }
      });
    });

  audit.command('checkpoint').description('link what is pending and sign the chain head now').addOption(json())
    .action((opts: JsonFlag) => withCore(async (core) => {
      const checkpoint = await core.auditChain.checkpoint();
      const head = await core.auditChain.verify();
      printResult({ signed: checkpoint !== null, position: checkpoint?.position ?? head.head.position, signed_at: checkpoint?.signedAt ?? head.lastCheckpoint?.signedAt ?? null }, opts.json === true);
    }));

  audit.command('prune').description('delete entries older than COFFER_AUDIT_RETENTION_MONTHS behind a signed anchor (refused when the chain does not verify)').addOption(json())
    .action((opts: JsonFlag) => withCore(async (core) => {
      const { pruned, anchor } = await core.auditChain.prune();
      printResult({ pruned, anchor_position: anchor?.position ?? null, retention_months: core.auditChain.policy.retentionMonths }, opts.json === true);
    }));
}

/** `coffer compliance report` (docs/compliance.md): the evidence as one JSON document. */
export function complianceCommands(cli: Command, withCore: WithCore): void {
  const compliance = cli.command('compliance').description('PCI DSS evidence (docs/compliance.md)');
  compliance.command('report').description('print what is configured and what was checked, requirement by requirement, as JSON (exit 3 when one is not met)')
    .action(() => withCore(async (core) => {
      // Members past their inactivity are disabled first: the report shows the state that holds.
      await core.peoplePolicy.disableInactive();
      const report = await core.compliance.report();
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      if (report.requirements.some((requirement) => requirement.status === 'not_met')) process.exitCode = 3;
    }));
}
