import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { runCoffer, useCofferProcesses, type RunResult } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

/** `coffer audit verify|export|checkpoint` and `coffer compliance report`, as an operator runs them (docs/audit.md, docs/compliance.md). */

vi.setConfig({ testTimeout: 120_000 });
const defer = useCofferProcesses();

function okJson(result: RunResult): any {
  const context = `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
  expect(result.code, context).toBe(0);
  expect(result.stdoutLines, context).toHaveLength(1);
  return JSON.parse(result.stdoutLines[0]!);
}

describe('coffer audit and coffer compliance', () => {
  it('verifies, signs, exports; names an edited row (exit 3); reports the evidence', async () => {
    const temp = tempDir('coffer-audit-');
    defer(temp.cleanup);
    const env = { COFFER_DATA_DIR: temp.dir };
    const org = okJson(await runCoffer(['init', '--json'], env)).organization_token as string;
    // Each `users create` records an audit event (the operator's).
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
      okJson(await runCoffer(['users', 'create', '--organization', org, '--email', email, '--role', 'developer', '--json'], env));
    }

    const verified = okJson(await runCoffer(['audit', 'verify', '--json'], env));
    expect(verified).toMatchObject({ ok: true, problem: null, message: 'the chain verifies' });
    expect(verified.verified_through).toBeGreaterThanOrEqual(3);
    const signed = okJson(await runCoffer(['audit', 'checkpoint', '--json'], env));
    expect(signed).toMatchObject({ signed: true, position: verified.verified_through });

    const exported = await runCoffer(['audit', 'export'], env);
    expect(exported.code, exported.stderr).toBe(0);
    const lines = exported.stdoutLines.map((line) => JSON.parse(line));
    expect(lines.map((line) => line.position)).toEqual(lines.map((_line, index) => index + 1));
    expect(lines.every((line, index) => index === 0 || line.prev_hash === lines[index - 1].hash)).toBe(true);
    expect(lines.some((line) => line.type === 'audit_event' && line.action === 'user.create')).toBe(true);
    const after = await runCoffer(['audit', 'export', '--after', '2'], env);
    expect(after.stdoutLines.map((line) => JSON.parse(line).position)[0]).toBe(3);
    expect((await runCoffer(['audit', 'export', '--after', 'x'], env)).stderr).toContain('--after must be a chain position');

    const report = await runCoffer(['compliance', 'report'], env);
    // The local master key file is a development setup: 3.6.1 is not met, so exit 3.
    expect(report.code, report.stderr).toBe(3);
    const evidence = JSON.parse(report.stdout);
    expect(evidence.key_management.provider).toBe('file');
    expect(evidence.audit_trail).toMatchObject({ verified: true, checkpoints: 1, retention_months: 12 });
    expect(evidence.people).toMatchObject({ password_min_length: 12, lockout_failures: 10, lockout_minutes: 30, idle_timeout_minutes: 15, inactive_days: 90 });
    // `coffer init` made the portal owner too.
    expect(evidence.people.organizations[0].members_without_two_step).toEqual(['owner@coffer.local', 'a@example.com', 'b@example.com', 'c@example.com']);
    expect(evidence.tls.protocols).toEqual(['TLSv1.2', 'TLSv1.3']);
    expect(evidence.data_directory).toMatchObject({ path: temp.dir, private: true });
    const status = Object.fromEntries(evidence.requirements.map((finding: { requirement: string; status: string }) => [finding.requirement, finding.status]));
    expect(status).toMatchObject({ '3.6.1': 'not_met', '8.2.8': 'met', '8.3.4': 'met', '10.3.4': 'met', '10.5.1': 'met' });

    // Someone edits an audit row in the database file.
    const db = new Database(path.join(temp.dir, 'coffer.sqlite'));
    db.prepare("update audit_events set actor = 'someone-else' where chain_position = 2").run();
    db.close();
    const broken = await runCoffer(['audit', 'verify', '--json'], env);
    expect(broken.code).toBe(3);
    expect(JSON.parse(broken.stdoutLines[0]!)).toMatchObject({ ok: false, problem: 'altered', problem_position: 2, verified_through: 1 });
    const reportAfter = JSON.parse((await runCoffer(['compliance', 'report'], env)).stdout);
    expect(reportAfter.requirements.find((finding: { requirement: string }) => finding.requirement === '10.3.4')).toMatchObject({ status: 'not_met' });
  });
});
