/** Unit and component tests (jest-expo, React Native Testing Library). */
module.exports = {
  preset: 'jest-expo',
  setupFiles: ['<rootDir>/jest.setup.tsx'],
  setupFilesAfterEnv: ['<rootDir>/jest.after-env.ts'],
  testMatch: ['<rootDir>/app/**/*.test.ts', '<rootDir>/app/**/*.test.tsx'],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/e2e/', '<rootDir>/server/', '<rootDir>/dist/'],
  clearMocks: true,
  // A clean clone transforms everything on first use: be generous.
  testTimeout: 30000,
};
