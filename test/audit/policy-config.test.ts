import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';

const BASE = { COFFER_DATA_DIR: '/tmp/coffer-policy-config' };

/** The PCI bounds of the people and audit settings (docs/compliance.md): a value outside them is refused at start. */
describe('people and audit settings', () => {
  it('defaults to PCI DSS v4.0.1 values', () => {
    const config = loadConfig(BASE);
    expect(config.people).toEqual({ passwordMinLength: 12, lockoutFailures: 10, lockoutMs: 30 * 60_000, idleTimeoutMs: 15 * 60_000, inactiveDays: 90 });
    expect(config.audit).toEqual({ retentionMonths: 12, chainIntervalMs: 1000, checkpointIntervalMs: 15 * 60_000 });
  });

  it('takes values within the bounds', () => {
    const config = loadConfig({ ...BASE, COFFER_PORTAL_IDLE_TIMEOUT: '5m', COFFER_PORTAL_LOCKOUT_FAILURES: '5', COFFER_PORTAL_LOCKOUT_DURATION: '2h', COFFER_PORTAL_PASSWORD_MIN_LENGTH: '20', COFFER_PORTAL_INACTIVE_DAYS: '45', COFFER_AUDIT_RETENTION_MONTHS: '24', COFFER_AUDIT_CHECKPOINT_INTERVAL: '1h' });
    expect(config.people).toEqual({ passwordMinLength: 20, lockoutFailures: 5, lockoutMs: 2 * 3_600_000, idleTimeoutMs: 5 * 60_000, inactiveDays: 45 });
    expect(config.audit).toMatchObject({ retentionMonths: 24, checkpointIntervalMs: 3_600_000 });
  });

  it.each([
    ['COFFER_PORTAL_IDLE_TIMEOUT', '30m'],
    ['COFFER_PORTAL_LOCKOUT_FAILURES', '11'],
    ['COFFER_PORTAL_LOCKOUT_DURATION', '10m'],
    ['COFFER_PORTAL_PASSWORD_MIN_LENGTH', '8'],
    ['COFFER_PORTAL_INACTIVE_DAYS', '120'],
    ['COFFER_AUDIT_RETENTION_MONTHS', '6'],
    ['COFFER_AUDIT_CHAIN_INTERVAL', 'soon'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig({ ...BASE, [name]: value })).toThrow(name);
  });
});
