/**
 * The lint rule of the languages: no user-visible text is written as a
 * literal in the app's screens, components, hooks or state. Every label,
 * title, placeholder, toast and error text goes through i18next (`t('key')`),
 * so English and Spanish (app/i18n/en.json, es.json) cover all of it. The
 * rule reads the code with TypeScript's own parser, so it sees JSX text,
 * the props a person reads, the first argument of a toast, the fallback of
 * errorMessage/useErrorToast and the label/title fields of option lists.
 */
import { readdirSync, readFileSync, statSync } from 'fs';
import { join, relative } from 'path';
import ts from 'typescript';

const APP = join(__dirname, '..');
const SCANNED = ['screens', 'components', 'hooks', 'state', 'navigators'];

/** Props and object fields a person reads. */
const TEXT_NAMES = new Set([
  'title', 'label', 'placeholder', 'accessibilityLabel', 'aria-label', 'hint', 'emptyText', 'loadingText',
  'submitTitle', 'confirmTitle', 'cancelTitle', 'confirmLabel', 'cancelLabel', 'message', 'subtitle', 'heading', 'accessibilityHint', 'description', 'text', 'error', 'caption',
]);
/** Calls whose argument (index) is a sentence shown to a person. */
const TEXT_CALLS: Record<string, number> = { toast: 0, success: 0, error: 0, loading: 0, useErrorToast: 2, errorMessage: 1 };

const hasWords = (s: string) => /[A-Za-z]{2,}/.test(s);

/** The name of a call's function: t, toast.error → error, i18n.t → t. */
function calleeName(node: ts.CallExpression): { name: string; base: string } {
  const c = node.expression;
  if (ts.isIdentifier(c)) return { name: c.text, base: c.text };
  if (ts.isPropertyAccessExpression(c)) return { name: c.name.text, base: c.expression.getText() };
  return { name: '', base: '' };
}

/** A literal that is not shown: a t() key, a comparison, an object key, an import. */
function isQuiet(node: ts.Node): boolean {
  const p = node.parent;
  if (ts.isCallExpression(p) && calleeName(p).name === 't') return true;
  if (ts.isBinaryExpression(p) && /^(===|!==|==|!=)$/.test(p.operatorToken.getText())) return true;
  if (ts.isCaseClause(p) || ts.isElementAccessExpression(p) || ts.isLiteralTypeNode(p)) return true;
  if (ts.isPropertyAssignment(p) && p.name === node) return true;
  return false;
}

export function untranslated(code: string, fileName = 'file.tsx'): string[] {
  const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const report = (node: ts.Node, text: string) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push(`${line + 1}: ${JSON.stringify(text.trim())}`);
  };
  /** Every literal with words inside an expression whose value a person reads. */
  const shown = (expr: ts.Node | undefined) => {
    if (!expr) return;
    const walk = (n: ts.Node) => {
      if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && hasWords(n.text) && !isQuiet(n)) report(n, n.text);
      else if (ts.isTemplateExpression(n) && !isQuiet(n)) {
        const text = n.head.text + n.templateSpans.map((sp) => sp.literal.text).join(' ');
        if (hasWords(text)) report(n, text);
      }
      // A function inside (a render prop) and nested JSX are visited on their own.
      if (ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isJsxElement(n) || ts.isJsxSelfClosingElement(n) || ts.isJsxFragment(n)) return;
      if (ts.isCallExpression(n) && calleeName(n).name === 't') return;
      // { key: 'description' }: a field nobody reads (its own rule covers text fields).
      if (ts.isPropertyAssignment(n) && n !== expr && !TEXT_NAMES.has(n.name.getText(source).replace(/['"]/g, ''))) return;
      ts.forEachChild(n, walk);
    };
    walk(expr);
  };
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node) && hasWords(node.text)) report(node, node.text);
    if (ts.isJsxExpression(node) && (ts.isJsxElement(node.parent) || ts.isJsxFragment(node.parent))) shown(node.expression);
    if (ts.isJsxAttribute(node) && TEXT_NAMES.has(node.name.getText(source))) shown(node.initializer);
    // const title = admin ? 'Admin Dashboard' : 'Dashboard': a choice between sentences is shown somewhere.
    if (ts.isVariableDeclaration(node) && node.initializer && ts.isConditionalExpression(node.initializer)) {
      const { whenTrue, whenFalse } = node.initializer;
      const sentence = (n: ts.Expression) => (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && /^[A-Z][a-z]/.test(n.text);
      if (sentence(whenTrue) || sentence(whenFalse)) shown(node.initializer);
    }
    if (ts.isPropertyAssignment(node) && TEXT_NAMES.has(node.name.getText(source).replace(/['"]/g, ''))) shown(node.initializer);
    if (ts.isCallExpression(node)) {
      const { name, base } = calleeName(node);
      const index = TEXT_CALLS[name];
      if (index !== undefined && (base === 'toast' || name === 'useErrorToast' || name === 'errorMessage')) shown(node.arguments[index]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * t() calls at a module's top level: they run once, at import, so their text
 * would not follow a change of language. Put them in a function.
 */
export function moduleLevelTexts(code: string, fileName = 'file.tsx'): string[] {
  const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const visit = (node: ts.Node, inFunction: boolean) => {
    const inside = inFunction || ts.isFunctionLike(node);
    if (!inside && ts.isCallExpression(node) && calleeName(node).name === 't') {
      found.push(`${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${node.getText(source)}`);
    }
    ts.forEachChild(node, (child) => visit(child, inside));
  };
  visit(source, false);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === '__tests__' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

describe('no untranslated text in the app', () => {
  it('catches what it should and lets the rest pass', () => {
    expect(untranslated('const a = <Text>Transfer Funds</Text>;')).toHaveLength(1);
    expect(untranslated('const a = <Button title="Transfer" />;')).toHaveLength(1);
    expect(untranslated("const a = <TextField placeholder={'Search...'} />;")).toHaveLength(1);
    expect(untranslated("toast.error('Transfer failed');")).toHaveLength(1);
    expect(untranslated("toast.success(`Saved ${n} payees`);")).toHaveLength(1);
    expect(untranslated("useErrorToast(q.error, q.errorUpdatedAt, 'Failed to fetch accounts');")).toHaveLength(1);
    expect(untranslated("const cols = [{ key: 'date', title: 'Date' }];")).toHaveLength(1);
    expect(untranslated("const a = <Text>{mode === 'login' ? 'Sign in' : 'Create your account'}</Text>;")).toHaveLength(2);
    expect(untranslated("const a = <Button title={busy ? 'Saving...' : t('Save')} />;")).toHaveLength(1);
    expect(untranslated("const title = admin ? 'Admin Dashboard' : 'Dashboard';")).toHaveLength(2);
    expect(
      untranslated(
        "const a = <Button title={t('transfer.submit')} testID=\"transfer-submit\" />; toast.error(t('x')); const c = { key: 'date', title: t('date') }; const b = <Text>{'$'}{n}</Text>; const d = <Text>{kind === 'login' ? t('Sign in') : t('Register')}</Text>;",
      ),
    ).toEqual([]);
  });

  const files = SCANNED.flatMap((dir) => sourceFiles(join(APP, dir)));
  it('scans the screens and their parts', () => expect(files.length).toBeGreaterThan(60));
  it('calls t() only when drawing, never at import', () => {
    expect(moduleLevelTexts("const TABS = [{ label: t('History') }];")).toHaveLength(1);
    expect(moduleLevelTexts("const tabs = () => [{ label: t('History') }];")).toEqual([]);
    const found = files.flatMap((file) => moduleLevelTexts(readFileSync(file, 'utf8'), file).map((v) => `${relative(APP, file)}:${v}`));
    expect(found).toEqual([]);
  });

  it('finds none in any screen, component, hook or state', () => {
    // and each "Failed to ..." text is written once (i18n/texts.ts holds the shared ones)
    const failures = files.flatMap((file) => readFileSync(file, 'utf8').match(/t\('Failed to [^']*'\)/g) ?? []);
    expect(failures.filter((f, i) => failures.indexOf(f) !== i)).toEqual([]);
    const found = files.flatMap((file) => untranslated(readFileSync(file, 'utf8'), file).map((v) => `${relative(APP, file)}:${v}`));
    expect(found).toEqual([]);
  });
});
