import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Suites start real servers and databases; give them room but never hang CI.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Starts the machine's own PostgreSQL / Redis / sshd when not configured (README, "Development").
    globalSetup: ['test/global-setup.ts'],
  },
});
