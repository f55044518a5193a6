/**
 * English and Spanish complete: every key the code passes to t() is in the
 * Spanish catalog with the same placeholders, and the language, Intl's
 * locale, plurals and amounts typed with a comma work together.
 */
import { readdirSync, readFileSync, statSync } from 'fs';
import { join } from 'path';
import ts from 'typescript';

import { ROUTE_TITLES } from '../navigators/routes';
import { INVALID_SERVER_MESSAGE } from '../services/serverAddress';
import { TWO_FACTOR_REQUIRED_FALLBACK } from '../state/twoFactorGate';
import { formatMoney } from '../utils/format';
import { formatRelativeTime } from '../utils/relativeTime';
import * as validation from '../utils/validation';
import { CODE_OR_BACKUP_MESSAGE, CODE_REQUIRED_MESSAGE } from '../utils/twoFactor';
import en from './en.json';
import es from './es.json';
import { pickLocale, setLanguage, t } from './index';

const APP = join(__dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === '__tests__' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

/** Every literal key of a t('...') call in the app. */
function keysInCode(): string[] {
  const keys = new Set<string>();
  for (const file of sourceFiles(APP)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 't') {
        const arg = node.arguments[0];
        if (arg && (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg))) keys.add(arg.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return [...keys];
}

const spanish = es as Record<string, string>;
const english = en as Record<string, string>;
const placeholders = (s: string) => (s.match(/\{\{\s*\w+\s*\}\}/g) ?? []).map((p) => p.replace(/\s/g, '')).sort();
const inCatalog = (catalog: Record<string, string>, key: string) => key in catalog || `${key}_one` in catalog;

afterEach(() => setLanguage('en'));

describe('the catalogs', () => {
  const keys = [
    ...keysInCode(),
    ...Object.values(ROUTE_TITLES),
    INVALID_SERVER_MESSAGE,
    TWO_FACTOR_REQUIRED_FALLBACK,
    CODE_REQUIRED_MESSAGE,
    CODE_OR_BACKUP_MESSAGE,
    validation.INVALID_AMOUNT_MESSAGE,
    validation.FIRST_RUN_FORMAT_MESSAGE,
    validation.FIRST_RUN_PAST_MESSAGE,
    validation.UNTIL_FORMAT_MESSAGE,
    validation.UNTIL_BEFORE_MESSAGE,
  ];

  it('finds the keys of the code', () => expect(keys.length).toBeGreaterThan(350));

  it('has every key in Spanish', () => {
    expect(keys.filter((k) => !inCatalog(spanish, k))).toEqual([]);
  });

  it('keeps the placeholders of every key', () => {
    const wrong = Object.entries(spanish).filter(([k, v]) => placeholders(k.replace(/_(one|other)$/, '')).join() !== placeholders(v).join());
    expect(wrong).toEqual([]);
  });

  it('has the English plural forms Spanish has', () => {
    const plurals = Object.keys(spanish).filter((k) => /_(one|other)$/.test(k));
    expect(plurals.filter((k) => !(k in english))).toEqual([]);
  });

  it('keeps no Spanish key that the code does not use (no stale entries)', () => {
    const used = new Set(keys);
    const known = (k: string) => used.has(k.replace(/_(one|other)$/, ''));
    // The server's sentences and HTTP status texts are keys of errorMessage and ApiError.statusText.
    const serverSide = Object.keys(spanish).filter((k) => !known(k));
    expect(serverSide.every((k) => /^[A-Z]/.test(k))).toBe(true);
  });
});

describe('the language of the device', () => {
  it('takes the first preferred locale the app speaks, else English', () => {
    expect(pickLocale([{ languageCode: 'fr', languageTag: 'fr-FR' }, { languageCode: 'es', languageTag: 'es-MX' }])).toEqual({ language: 'es', tag: 'es-MX' });
    expect(pickLocale([{ languageCode: 'de', languageTag: 'de-DE' }])).toEqual({ language: 'en', tag: 'en-US' });
    expect(pickLocale([])).toEqual({ language: 'en', tag: 'en-US' });
  });

  it('speaks Spanish, plurals included', () => {
    setLanguage('es', 'es-ES');
    expect(t('Transfer Funds')).toBe('Transferir fondos');
    expect(t('Used today: {{used}} of {{limit}}', { used: '1', limit: '2' })).toBe('Usado hoy: 1 de 2');
    const now = Date.parse('2026-11-25T12:00:00Z');
    expect(formatRelativeTime(now - 60_000, now)).toBe('hace 1 minuto');
    expect(formatRelativeTime(now - 5 * 60_000, now)).toBe('hace 5 minutos');
    setLanguage('en');
    expect(formatRelativeTime(now - 60_000, now)).toBe('1 minute ago');
    expect(formatRelativeTime(now - 2 * 3_600_000, now)).toBe('2 hours ago');
  });

  it("writes money with Intl for the user's locale", () => {
    expect(formatMoney(1250.5, 'USD', 'en-US')).toBe('$1,250.50');
    expect(formatMoney(-3, 'EUR', 'en-US')).toBe('-€3.00');
    expect(formatMoney(1250.5, 'EUR', 'es-ES').replace(/\s/g, ' ')).toMatch(/^1\.?250,50 €$/);
    expect(formatMoney(12.5, 'XYZ1', 'en-US')).toBe('12.50 XYZ1');
  });

  it('takes amounts typed with a comma or a point', () => {
    expect(validation.isValidAmount('12,50')).toBe(true);
    expect(validation.amountForApi(' 12,5 ')).toBe('12.5');
    expect(validation.amountForApi('12.50')).toBe('12.50');
    expect(validation.isValidAmount('1,250.50')).toBe(false);
    expect(validation.isValidAmount('12,505')).toBe(false);
    expect(validation.transferFormError({ from: '1', amount: '0,01', to: '2' })).toBeNull();
  });
});
