export * from './colors';
export * from './ThemeProvider';
