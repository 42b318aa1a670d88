import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/test/**/*.test.ts', 'services/*/test/**/*.test.ts', 'test/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // A forgotten `.only` would silently skip the rest of the suite: fail instead, locally as in CI.
          allowOnly: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/e2e/support/globalSetup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // One platform serves every file; files run one after another so
          // rate limits and process kills in one file cannot disturb another.
          fileParallelism: false,
          allowOnly: false,
        },
      },
      {
        test: {
          // The platform on a JetStream cluster and a Redis Cluster, two replicas of every service (test/cluster/).
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts'],
          globalSetup: ['test/cluster/support/globalSetup.ts'],
          testTimeout: 1_200_000,
          hookTimeout: 900_000,
          fileParallelism: false,
          allowOnly: false,
        },
      },
    ],
  },
});
