/**
 * The lint rule of the theme: outside app/theme/ no colour is written as a
 * literal and no font size as a number. Colours come from the palette
 * (`useTheme().colors`), sizes from `fontSize`, so the contrast test sees
 * every colour the app draws.
 */
import { readdirSync, readFileSync, statSync } from 'fs';
import { join, relative } from 'path';

const APP = join(__dirname, '..');
const THEME = __dirname;

const RULES: Array<{ name: string; pattern: RegExp }> = [
  { name: 'hex colour', pattern: /['"`]\s*#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})\s*['"`]/ },
  { name: 'rgb()/hsl() colour', pattern: /\b(?:rgba?|hsla?)\(\s*\d/ },
  { name: 'named colour', pattern: /\b(?:color|Color|fill|stroke|backgroundColor|borderColor)\s*[:=]\s*\{?\s*['"](?!transparent['"])[a-z]+['"]/ },
  { name: 'colour arithmetic', pattern: /colors\.\w+\s*\+\s*['"`]/ },
  { name: 'raw font size', pattern: /\bfontSize\s*[:=]\s*\{?\s*\d/ },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return path === THEME || name === '__tests__' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

/** Comments may mention colours; only code counts. */
function stripComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

function violations(code: string): string[] {
  const found: string[] = [];
  stripComments(code)
    .split('\n')
    .forEach((line, i) => {
      for (const rule of RULES) if (rule.pattern.test(line)) found.push(`${i + 1}: ${rule.name}: ${line.trim()}`);
    });
  return found;
}

describe('no colour literal or raw font size outside app/theme/', () => {
  it('catches what it should and lets the rest pass', () => {
    expect(violations("const s = { color: '#ffffff' };")).toHaveLength(1);
    expect(violations('<Icon color="#fff" />')).toHaveLength(1);
    expect(violations("backgroundColor: 'rgba(0, 0, 0, 0.5)'")).toHaveLength(1);
    expect(violations("{ color: 'white' }")).toHaveLength(1);
    expect(violations("backgroundColor: colors.primaryMuted + '55'")).toHaveLength(1);
    expect(violations('text: { fontSize: 11 }')).toHaveLength(1);
    expect(violations("{ fontSize: fontSize.sm, borderColor: 'transparent', color: colors.text }")).toEqual([]);
    expect(violations('// issue #123: white text\nconst x = 1;')).toEqual([]);
  });

  const files = sourceFiles(APP);
  it('scans the app', () => expect(files.length).toBeGreaterThan(40));
  it('finds none in any source file', () => {
    const found = files.flatMap((file) => violations(readFileSync(file, 'utf8')).map((v) => `${relative(APP, file)}:${v}`));
    expect(found).toEqual([]);
  });
});
