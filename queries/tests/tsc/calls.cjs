// The TypeScript compiler's answer to "what does each call site call?", for checking
// keel's hand-checked expected call edges (queries/tests/it/callgraph_typescript.rs).
//
// Usage: node calls.cjs <typescript module folder> <fixture root>...
//
// Builds one program per root over every .ts/.tsx/.js/.jsx/.mts/.cts/.mjs/.cjs file under
// it (allowJs, CommonJS interop, the root's tsconfig.json `baseUrl`/`paths` when present)
// and prints one JSON object per line for every call, `new`, `super()` and tagged
// template, `root` being the root's index among the arguments:
//   {"root", "file", "line", "status": "edge", "target": {"file", "line", "named"}}
//   {"root", "file", "line", "status": "external" | "unresolved"}
// `line` is the line of the callee's last name (`b` of `a.b()`), as keel counts it; a
// target is the declaration the checker resolves the call's signature to (its first
// line), mapped to a keel node by the caller of this script. `f.call()`/`f.apply()` are
// calls of `f`. A declaration outside the root, in a declaration file or `declare`d is
// external; a signature that belongs to a type (a parameter's function type, an
// interface member) or no declaration at all is unresolved — except that a variable
// declared with a function type resolves to the function its initializer holds.
"use strict";

const path = require("path");
const fs = require("fs");

const ts = require(process.argv[2]);
const SOURCE = /\.(ts|tsx|js|jsx|mts|cts|mjs|cjs)$/;

function listFiles(dir) {
  const found = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules") found.push(...listFiles(full));
    } else if (SOURCE.test(entry.name)) {
      found.push(full);
    }
  }
  return found.sort();
}

function report(index, root) {
  let options = {
    allowJs: true,
    checkJs: false,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    esModuleInterop: true,
    jsx: ts.JsxEmit.Preserve,
    noEmit: true,
    strict: false,
    types: [],
  };
  const configPath = path.join(root, "tsconfig.json");
  if (fs.existsSync(configPath)) {
    const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic() {} };
    const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, host);
    if (parsed) {
      for (const key of ["baseUrl", "paths", "pathsBasePath"]) {
        if (parsed.options[key] !== undefined) options[key] = parsed.options[key];
      }
    }
  }

  const files = listFiles(root);
  const program = ts.createProgram(files, options);
  const checker = program.getTypeChecker();

  function relative(fileName) {
    return path.relative(root, fileName).split(path.sep).join("/");
  }

  function lineOf(sourceFile, position) {
    return sourceFile.getLineAndCharacterOfPosition(position).line + 1;
  }

  function calleeLine(sourceFile, callee) {
    let node = callee;
    while (ts.isParenthesizedExpression(node) || ts.isNonNullExpression(node)) {
      node = node.expression;
    }
    if (ts.isPropertyAccessExpression(node)) node = node.name;
    else if (ts.isElementAccessExpression(node)) node = node.argumentExpression;
    return lineOf(sourceFile, node.getStart(sourceFile));
  }

  function isOutside(declaration) {
    const sourceFile = declaration.getSourceFile();
    if (sourceFile.isDeclarationFile) return true;
    const fileName = path.resolve(sourceFile.fileName);
    if (!fileName.startsWith(root + path.sep)) return true;
    for (let node = declaration; node; node = node.parent) {
      const modifiers = ts.canHaveModifiers(node) ? ts.getModifiers(node) : undefined;
      if (modifiers && modifiers.some((m) => m.kind === ts.SyntaxKind.DeclareKeyword)) {
        return true;
      }
    }
    return false;
  }

  // Signature declarations that are types, not code.
  function isTypeOnly(declaration) {
    if (
      ts.isFunctionTypeNode(declaration) ||
      ts.isConstructorTypeNode(declaration) ||
      ts.isCallSignatureDeclaration(declaration) ||
      ts.isConstructSignatureDeclaration(declaration) ||
      ts.isJSDocSignature?.(declaration)
    ) {
      return true;
    }
    if (ts.isMethodSignature(declaration)) {
      return ts.isInterfaceDeclaration(declaration.parent) || ts.isTypeLiteralNode(declaration.parent);
    }
    return false;
  }

  // A declaration that is itself a named callable (a function, a class member, a function
  // bound to a variable or field), not anonymous code.
  function isNamed(declaration) {
    if (ts.isFunctionDeclaration(declaration) && declaration.name) return true;
    if (ts.isConstructorDeclaration(declaration)) return true;
    if (
      (ts.isMethodDeclaration(declaration) || ts.isGetAccessorDeclaration(declaration)) &&
      ts.isClassLike(declaration.parent)
    ) {
      return true;
    }
    if (ts.isArrowFunction(declaration) || ts.isFunctionExpression(declaration)) {
      const parent = declaration.parent;
      return ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent);
    }
    return false;
  }

  function aliased(symbol) {
    return symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  }

  // The function `f` of `f.call(…)` / `f.apply(…)`, when it is one of the repository.
  function calledThrough(call) {
    const callee = call.expression;
    if (!ts.isPropertyAccessExpression(callee)) return undefined;
    if (callee.name.text !== "call" && callee.name.text !== "apply") return undefined;
    const symbol = aliased(checker.getSymbolAtLocation(callee.expression));
    let declaration = symbol && symbol.valueDeclaration;
    if (declaration && ts.isVariableDeclaration(declaration) && declaration.initializer) {
      declaration = declaration.initializer;
    }
    if (
      declaration &&
      (ts.isFunctionDeclaration(declaration) ||
        ts.isMethodDeclaration(declaration) ||
        ts.isFunctionExpression(declaration) ||
        ts.isArrowFunction(declaration))
    ) {
      return declaration;
    }
    return undefined;
  }

  // The function a `const f: Type = () => …` (or a property of that shape) holds.
  function initializerFunction(callee) {
    if (!callee) return undefined;
    const symbol = aliased(checker.getSymbolAtLocation(callee));
    const declaration = symbol && symbol.valueDeclaration;
    if (!declaration) return undefined;
    const initializer =
      (ts.isVariableDeclaration(declaration) || ts.isPropertyDeclaration(declaration)) &&
      declaration.initializer;
    if (initializer && (ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer))) {
      return initializer;
    }
    return undefined;
  }

  function resolve(call) {
    let declaration;
    try {
      const signature = checker.getResolvedSignature(call);
      declaration = signature && signature.declaration;
    } catch (error) {
      declaration = undefined;
    }
    if (ts.isCallExpression(call)) {
      const through = calledThrough(call);
      if (through && (!declaration || isOutside(declaration))) declaration = through;
    }
    if (declaration && isTypeOnly(declaration)) {
      // A variable declared with a function type: the function its initializer is.
      const initialized = initializerFunction(call.expression);
      if (initialized) declaration = initialized;
    }
    if (!declaration || isTypeOnly(declaration)) return { status: "unresolved" };
    if (isOutside(declaration)) return { status: "external" };
    const sourceFile = declaration.getSourceFile();
    return {
      status: "edge",
      target: {
        file: relative(sourceFile.fileName),
        line: lineOf(sourceFile, declaration.getStart(sourceFile)),
        named: isNamed(declaration),
      },
    };
  }

  for (const fileName of files) {
    const sourceFile = program.getSourceFile(fileName);
    if (!sourceFile) continue;
    const file = relative(fileName);
    const visit = (node) => {
      let callee;
      if (ts.isCallExpression(node) && node.expression.kind !== ts.SyntaxKind.ImportKeyword) {
        callee = node.expression;
      } else if (ts.isNewExpression(node)) {
        callee = node.expression;
      } else if (ts.isTaggedTemplateExpression(node)) {
        callee = node.tag;
      }
      if (callee) {
        const line = calleeLine(sourceFile, callee);
        lines.push(JSON.stringify({ root: index, file, line, ...resolve(node) }));
      }
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
  }
}

const lines = [];
process.argv.slice(3).forEach((root, index) => report(index, path.resolve(root)));
process.stdout.write(lines.join("\n") + (lines.length ? "\n" : ""));
