/**
 * Unit and component tests (jest-expo, Testing Library), as three projects:
 *
 * - ios: every test (logic `*.test.ts` and rendered `*.test.tsx`), Platform.OS 'ios';
 * - android: the rendered tests again, Platform.OS 'android' (.android/.native files);
 * - web: the rendered tests on react-native-web in jsdom (.web files: the <select>,
 *   localStorage, Escape), through app/__tests__/rtl.web.ts.
 *
 * So Modal, SecureStore, the Select sheet and the keyboard paths are rendered on
 * Android and iOS, and the DOM on the web, by the same test files.
 */
const shared = {
  setupFiles: ['<rootDir>/jest.setup.tsx'],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/e2e/', '<rootDir>/server/', '<rootDir>/dist/'],
  clearMocks: true,
};
const RENDERED = ['<rootDir>/app/**/*.test.tsx'];

module.exports = {
  // A clean clone transforms everything on first use: be generous.
  testTimeout: 30000,
  projects: [
    {
      ...shared,
      displayName: 'ios',
      preset: 'jest-expo/ios',
      setupFilesAfterEnv: ['<rootDir>/jest.after-env.ts'],
      testMatch: ['<rootDir>/app/**/*.test.ts', ...RENDERED],
    },
    {
      ...shared,
      displayName: 'android',
      preset: 'jest-expo/android',
      setupFilesAfterEnv: ['<rootDir>/jest.after-env.ts'],
      testMatch: RENDERED,
    },
    {
      ...shared,
      displayName: 'web',
      preset: 'jest-expo/web',
      setupFiles: [...shared.setupFiles, '<rootDir>/jest.setup.web.ts'],
      setupFilesAfterEnv: ['<rootDir>/jest.after-env.web.ts'],
      testMatch: RENDERED,
    },
  ],
};
