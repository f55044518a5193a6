export * from './colors';
export * from './ThemeProvider';
export * from './themed';
