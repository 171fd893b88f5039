import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Suites start real servers and databases; give them room but never hang CI.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one worker on a 2-core CI machine. Most
    // suites wait on child processes, databases, fsync and browsers rather than use a core, so one
    // worker more than the cores keeps both busy (docs/decisions.md, "Test run").
    maxWorkers: os.availableParallelism() + 1,
    // Starts the machine's own PostgreSQL / Redis / sshd when not configured (README, "Development").
    globalSetup: ['test/global-setup.ts'],
  },
});
