import { describe, expect, it } from 'vitest';
import { detectPostgres, detectRedis, detectSshd, type Machine } from '../helpers/local-services.js';

/** A machine with exactly these files and users. */
function machine(files: string[], options: { uid?: number; users?: string[] } = {}): Machine {
  const set = new Set(files);
  return {
    env: { PATH: '/usr/bin:/bin' },
    exists: (file) => set.has(file),
    list: (dir) => [...new Set(files.filter((file) => file.startsWith(`${dir}/`)).map((file) => file.slice(dir.length + 1).split('/')[0] as string))],
    uid: options.uid ?? 0,
    userExists: (name) => (options.users ?? []).includes(name),
  };
}

const SSH_TOOLS = ['/usr/bin/ssh-keygen', '/usr/sbin/useradd', '/usr/sbin/chpasswd', '/usr/sbin/userdel'];

/** What `npm test` decides to run on a machine (README, "Development"): the SFTP, PostgreSQL and Redis suites. */
describe('local test servers: detection', () => {
  it('uses the machine sshd when it and the account tools are there and we are root', () => {
    expect(detectSshd(machine(['/usr/sbin/sshd', ...SSH_TOOLS]))).toMatchObject({ ok: true, value: '/usr/sbin/sshd' });
  });

  it('names why the SFTP suites cannot run: sshd hidden, a tool missing, or not root', () => {
    expect(detectSshd(machine(SSH_TOOLS))).toEqual({ ok: false, why: expect.stringContaining('no sshd binary') });
    expect(detectSshd(machine(['/usr/sbin/sshd', '/usr/sbin/useradd', '/usr/sbin/chpasswd', '/usr/sbin/userdel']))).toEqual({ ok: false, why: 'ssh-keygen not found' });
    expect(detectSshd(machine(['/usr/sbin/sshd', ...SSH_TOOLS], { uid: 1000 }))).toEqual({ ok: false, why: expect.stringContaining('need root') });
  });

  it('runs PostgreSQL from the newest version directory, as the postgres user when we are root', () => {
    const files = ['/usr/lib/postgresql/9/bin/initdb', '/usr/lib/postgresql/9/bin/postgres', '/usr/lib/postgresql/15/bin/initdb', '/usr/lib/postgresql/15/bin/postgres', '/usr/sbin/runuser'];
    expect(detectPostgres(machine(files, { users: ['postgres', 'nobody'] }))).toMatchObject({ ok: true, value: { bin: '/usr/lib/postgresql/15/bin', runAs: { user: 'postgres', runuser: '/usr/sbin/runuser' } } });
    expect(detectPostgres(machine(files, { users: ['nobody'] }))).toMatchObject({ ok: true, value: { runAs: { user: 'nobody' } } });
    expect(detectPostgres(machine(files, { uid: 1000 }))).toMatchObject({ ok: true, value: { runAs: null } });
  });

  it('names why PostgreSQL cannot run: no binaries, or root without runuser or a user to run as', () => {
    expect(detectPostgres(machine([]))).toEqual({ ok: false, why: expect.stringContaining('no initdb/postgres') });
    const binaries = ['/usr/lib/postgresql/16/bin/initdb', '/usr/lib/postgresql/16/bin/postgres'];
    expect(detectPostgres(machine(binaries, { users: ['postgres'] }))).toEqual({ ok: false, why: expect.stringContaining('runuser is missing') });
    expect(detectPostgres(machine([...binaries, '/usr/sbin/runuser'], { users: [] }))).toEqual({ ok: false, why: expect.stringContaining('no postgres/nobody user') });
  });

  it('finds redis-server on PATH or says it is missing', () => {
    expect(detectRedis(machine(['/usr/bin/redis-server']))).toMatchObject({ ok: true, value: '/usr/bin/redis-server' });
    expect(detectRedis(machine([]))).toEqual({ ok: false, why: expect.stringContaining('no redis-server') });
  });
});
