/**
 * Under Jest, `import()` (lazy screens and charts) becomes a resolved
 * `require`, since Jest runs CommonJS without --experimental-vm-modules.
 * Metro keeps real dynamic imports (one chunk per screen on the web).
 */
function dynamicImportToRequire({ types: t }) {
  return {
    name: 'dynamic-import-to-require',
    visitor: {
      CallExpression(path) {
        if (path.node.callee.type !== 'Import') return;
        const required = t.callExpression(t.identifier('require'), path.node.arguments);
        const resolved = t.callExpression(t.memberExpression(t.identifier('Promise'), t.identifier('resolve')), []);
        path.replaceWith(
          t.callExpression(t.memberExpression(resolved, t.identifier('then')), [t.arrowFunctionExpression([], required)]),
        );
      },
    },
  };
}

module.exports = function (api) {
  const isTest = api.env('test');
  api.cache.using(() => process.env.NODE_ENV);
  return {
    presets: ['babel-preset-expo'],
    plugins: isTest ? [dynamicImportToRequire] : [],
  };
};
