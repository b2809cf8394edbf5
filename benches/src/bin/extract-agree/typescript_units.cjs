// extract-agree's TypeScript side: the TypeScript compiler API (`ts.createSourceFile`)
// parses each file, and this script turns its declarations into the verdict keel should
// give each selector under keel's TARGET rules (docs/specs.md, "Spec nodes and anchors"; the module
// docs of queries/src/extract/typescript.rs, issue 8).
//
// Usage: node typescript_units.cjs TYPESCRIPT_MODULE_DIR ROOT < paths (NUL-separated)
//
// Output, one record a line, tab-separated:
//   V <compiler and version>             (first)
//   F <path> parsed
//   F <path> errors <line> <message>     (the parser recovered from syntax errors)
//   F <path> rejected <line> <message>   (not UTF-8: no units)
//   S <path> <name> <verdict> <group> <kind> <ranges>
// verdict: live | type-only | ambiguous | unparseable (a unit that holds, or sits in a
// unit that holds, a syntax error the parser reported); group: how the unit was formed
// (plain, overload, accessor, decl-space, type-merge, global, block-var); kind: function | method |
// class | variable | enum | type; ranges: `start-end`, 1-based inclusive, `;`-separated.
//
// The rules, as keel states them:
// - module scope (the file, a namespace body): function and class declarations,
//   `const/let/var` declarators (functions, classes and data), enums, and type aliases /
//   interfaces (type-only); `export`, `export default`, `declare` and decorators belong to
//   the unit; `export default` of an anonymous function or class is named `default`;
// - namespaces qualify (`NS.Inner.f`, `declare module "pkg"` as `pkg`); `declare global`
//   does not;
// - class bodies: methods, constructors, get/set accessors (a get/set pair is one unit),
//   fields holding an arrow or function expression; computed names are not units;
// - function bodies: nested function declarations, classes and `const` functions or
//   classes (data is not a unit); blocks inside a function body are transparent;
// - overload signatures (a function or method without a body) join their implementation;
// - block scope (target): a block statement at module scope (`{}`, `if`, `for`, `try`,
//   `switch`, ...) holds no module-level unit, except `var` declarators, a `for` header's
//   included (function scoped: they are the module's);
// - declaration spaces (target): a name with both value and type declarations names the
//   value's unit; a name with only type declarations stays type-only, and several of
//   them (merged interfaces) stay ambiguous, as keel's docs/specs.md states;
// - any other repeated qualified name is ambiguous.
"use strict";

const fs = require("fs");
const path = require("path");

const ts = require(process.argv[2]);
const root = process.argv[3];

const GET = 1;
const SET = 2;

function clean(text) {
  return String(text).split(/\s+/).filter(Boolean).join(" ");
}

function scriptKind(file) {
  const ext = path.extname(file);
  switch (ext) {
    case ".tsx":
      return ts.ScriptKind.TSX;
    case ".js":
    case ".mjs":
    case ".cjs":
      return ts.ScriptKind.JS;
    case ".jsx":
      return ts.ScriptKind.JSX;
    default:
      return ts.ScriptKind.TS;
  }
}

/// keel's collector: overloads join the waiting group, accessors the open get/set pair.
class Collector {
  constructor() {
    this.units = [];
    this.open = new Map();
  }

  add(decl) {
    const open = this.open.get(decl.name);
    const target = open && this.units[open.index].kind === decl.kind ? open : null;
    if (decl.role === "overload" && target && target.state === "overload") {
      this.extend(target.index, decl, "overload");
      return target.index;
    }
    if (decl.role === "plain" && target && target.state === "overload") {
      this.extend(target.index, decl, "overload");
      this.open.delete(decl.name);
      return target.index;
    }
    if (decl.role === "accessor" && target && target.state === "accessors" && !(target.bits & decl.bit)) {
      this.extend(target.index, decl, "accessor");
      target.bits |= decl.bit;
      return target.index;
    }
    const index = this.units.length;
    this.units.push({
      name: decl.name,
      kind: decl.kind,
      start: decl.start,
      end: decl.end,
      groups: new Set(decl.groups || []),
      parent: decl.parent,
    });
    if (decl.role === "plain") this.open.delete(decl.name);
    else if (decl.role === "overload") this.open.set(decl.name, { index, state: "overload" });
    else this.open.set(decl.name, { index, state: "accessors", bits: decl.bit });
    return index;
  }

  extend(index, decl, group) {
    const unit = this.units[index];
    unit.start = Math.min(unit.start, decl.start);
    unit.end = Math.max(unit.end, decl.end);
    unit.groups.add(group);
  }
}

function unwrap(node) {
  while (
    node &&
    (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node))
  ) {
    node = node.expression;
  }
  return node;
}

function valueKind(node) {
  if (!node) return null;
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) return "function";
  if (ts.isClassExpression(node)) return "class";
  return null;
}

function hasModifier(node, kind) {
  return (ts.getModifiers?.(node) || node.modifiers || []).some((m) => m.kind === kind);
}

class FileWalk {
  constructor(sf) {
    this.sf = sf;
    this.units = new Collector();
  }

  line(pos) {
    return this.sf.getLineAndCharacterOfPosition(pos).line + 1;
  }

  lines(node) {
    return [this.line(node.getStart(this.sf)), this.line(node.end)];
  }

  /// Records a declaration; returns its unit index (the parent of what it contains).
  declare(scope, name, kind, node, role, bit, extraGroups) {
    const qualified = scope.prefix ? `${scope.prefix}.${name}` : name;
    const [start, end] = this.lines(node);
    const index = this.units.add({
      name: qualified,
      kind,
      start,
      end,
      role,
      bit,
      groups: extraGroups,
      parent: scope.parent,
    });
    return { qualified, index };
  }

  statements(list, scope) {
    for (const statement of list) this.statement(statement, scope);
  }

  /// A statement in `scope` ({prefix, kind: module|class|function, inBlock, parent}).
  statement(node, scope) {
    const moduleLevel = scope.kind === "module" && !scope.inBlock;
    if (ts.isFunctionDeclaration(node)) {
      if (scope.inBlock) return;
      const name = node.name ? node.name.text : hasModifier(node, ts.SyntaxKind.DefaultKeyword) ? "default" : null;
      if (!name) return;
      const role = node.body ? "plain" : "overload";
      const unit = this.declare(scope, name, "function", node, role, 0, scope.groups);
      if (node.body) this.functionBody(node.body, unit);
      return;
    }
    if (ts.isClassDeclaration(node)) {
      if (scope.inBlock) return;
      const name = node.name ? node.name.text : "default";
      const unit = this.declare(scope, name, "class", node, "plain", 0, scope.groups);
      this.classMembers(node.members, unit);
      return;
    }
    if (ts.isVariableStatement(node)) {
      const flags = node.declarationList.flags;
      const blockScoped = (flags & (ts.NodeFlags.Let | ts.NodeFlags.Const | ts.NodeFlags.Using)) !== 0;
      if (scope.inBlock && blockScoped) return;
      const declarations = node.declarationList.declarations;
      for (const declaration of declarations) {
        if (!ts.isIdentifier(declaration.name)) continue;
        const value = unwrap(declaration.initializer);
        let kind = valueKind(value);
        if (!kind) {
          if (scope.kind !== "module") continue;
          kind = "variable";
        }
        const covered = declarations.length === 1 ? node : declaration;
        const groups = scope.inBlock ? [...(scope.groups || []), "block-var"] : scope.groups;
        const unit = this.declare(scope, declaration.name.text, kind, covered, "plain", 0, groups);
        if (kind === "function" && value.body && ts.isBlock(value.body)) this.functionBody(value.body, unit);
        if (kind === "class") this.classMembers(value.members, unit);
      }
      return;
    }
    if (ts.isEnumDeclaration(node)) {
      if (moduleLevel) this.declare(scope, node.name.text, "enum", node, "plain", 0, scope.groups);
      return;
    }
    if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) {
      if (moduleLevel) this.declare(scope, node.name.text, "type", node, "plain", 0, scope.groups);
      return;
    }
    if (ts.isModuleDeclaration(node)) {
      if (!moduleLevel) return;
      if (node.flags & ts.NodeFlags.GlobalAugmentation) {
        if (node.body) this.statements(node.body.statements, { ...scope, groups: ["global"] });
        return;
      }
      let prefix = scope.prefix;
      let body = node;
      while (body && ts.isModuleDeclaration(body)) {
        const part = ts.isStringLiteral(body.name) ? body.name.text : body.name.text;
        prefix = prefix ? `${prefix}.${part}` : part;
        body = body.body;
      }
      if (body && ts.isModuleBlock(body)) {
        this.statements(body.statements, { ...scope, prefix, kind: "module", inBlock: false });
      }
      return;
    }
    if (ts.isExportAssignment(node)) {
      if (node.isExportEquals) return;
      const value = unwrap(node.expression);
      const kind = valueKind(value);
      if (!kind) return;
      const unit = this.declare(scope, "default", kind, node, "plain", 0, scope.groups);
      if (kind === "function" && value.body && ts.isBlock(value.body)) this.functionBody(value.body, unit);
      if (kind === "class") this.classMembers(value.members, unit);
      return;
    }
    // Compound statements: transparent, but at module scope they open a block scope.
    const inner = scope.kind === "module" ? { ...scope, inBlock: true } : scope;
    if (scope.kind === "module") this.forHeaderVars(node, scope);
    if (ts.isBlock(node)) {
      this.statements(node.statements, inner);
    } else if (ts.isIfStatement(node)) {
      this.statement(node.thenStatement, inner);
      if (node.elseStatement) this.statement(node.elseStatement, inner);
    } else if (ts.isTryStatement(node)) {
      this.statement(node.tryBlock, inner);
      if (node.catchClause) this.statement(node.catchClause.block, inner);
      if (node.finallyBlock) this.statement(node.finallyBlock, inner);
    } else if (ts.isSwitchStatement(node)) {
      for (const clause of node.caseBlock.clauses) this.statements(clause.statements, inner);
    } else if (
      ts.isForStatement(node) ||
      ts.isForInStatement(node) ||
      ts.isForOfStatement(node) ||
      ts.isWhileStatement(node) ||
      ts.isDoStatement(node) ||
      ts.isWithStatement(node)
    ) {
      this.statement(node.statement, inner);
    } else if (ts.isLabeledStatement(node)) {
      this.statement(node.statement, scope);
    }
  }

  /// `for (var i = 0; ...)`, `for (var k in o)`, `for (var v of xs)` at module scope: the
  /// `var`s bind to the module (block-scoped `let`/`const` headers do not).
  forHeaderVars(node, scope) {
    if (!(ts.isForStatement(node) || ts.isForInStatement(node) || ts.isForOfStatement(node))) return;
    const list = node.initializer;
    if (!list || !ts.isVariableDeclarationList(list)) return;
    if (list.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const | ts.NodeFlags.Using)) return;
    const groups = [...(scope.groups || []), "block-var"];
    for (const declaration of list.declarations) {
      if (!ts.isIdentifier(declaration.name)) continue;
      const value = unwrap(declaration.initializer);
      const kind = valueKind(value) || "variable";
      const unit = this.declare(scope, declaration.name.text, kind, declaration, "plain", 0, groups);
      if (kind === "function" && value.body && ts.isBlock(value.body)) this.functionBody(value.body, unit);
      if (kind === "class") this.classMembers(value.members, unit);
    }
  }

  functionBody(body, unit) {
    this.statements(body.statements, { prefix: unit.qualified, kind: "function", inBlock: false, parent: unit.index });
  }

  memberName(name) {
    if (!name || ts.isComputedPropertyName(name)) return null;
    const text = name.getText(this.sf);
    if (ts.isStringLiteral(name)) return text.length >= 2 ? text.slice(1, -1) : text;
    return text;
  }

  classMembers(members, unit) {
    const scope = { prefix: unit.qualified, kind: "class", inBlock: false, parent: unit.index };
    for (const member of members) {
      if (ts.isMethodDeclaration(member) || ts.isConstructorDeclaration(member)) {
        const name = ts.isConstructorDeclaration(member) ? "constructor" : this.memberName(member.name);
        if (name === null) continue;
        const role = member.body ? "plain" : "overload";
        const declared = this.declare(scope, name, "method", member, role, 0);
        if (member.body) this.functionBody(member.body, declared);
      } else if (ts.isGetAccessorDeclaration(member) || ts.isSetAccessorDeclaration(member)) {
        const name = this.memberName(member.name);
        if (name === null) continue;
        const bit = ts.isGetAccessorDeclaration(member) ? GET : SET;
        const declared = this.declare(scope, name, "method", member, "accessor", bit);
        if (member.body) this.functionBody(member.body, declared);
      } else if (ts.isPropertyDeclaration(member)) {
        const value = unwrap(member.initializer);
        if (valueKind(value) !== "function") continue;
        const name = this.memberName(member.name);
        if (name === null) continue;
        const declared = this.declare(scope, name, "method", member, "plain", 0);
        if (value.body && ts.isBlock(value.body)) this.functionBody(value.body, declared);
      }
    }
  }
}

/// The expected verdict of each name of one parsed file.
function verdicts(walk, errorLines) {
  const units = walk.units.units;
  const broken = (index) => {
    for (let i = index; i !== undefined && i !== null; i = units[i].parent) {
      const unit = units[i];
      if (errorLines.some((line) => line >= unit.start && line <= unit.end)) return true;
    }
    return false;
  };
  const byName = new Map();
  units.forEach((unit, index) => {
    if (!byName.has(unit.name)) byName.set(unit.name, []);
    byName.get(unit.name).push(index);
  });
  const out = [];
  for (const [name, indices] of byName) {
    const values = indices.filter((i) => units[i].kind !== "type");
    const types = indices.filter((i) => units[i].kind === "type");
    let chosen;
    let verdict;
    const groups = new Set();
    if (values.length > 0) {
      chosen = values;
      if (types.length > 0) groups.add("decl-space");
      verdict = values.length === 1 ? "live" : "ambiguous";
    } else {
      chosen = types;
      if (types.length > 1) groups.add("type-merge");
      verdict = types.length === 1 ? "type-only" : "ambiguous";
    }
    for (const i of chosen) for (const g of units[i].groups) groups.add(g);
    if (chosen.some(broken)) verdict = "unparseable";
    const kinds = [...new Set(chosen.map((i) => units[i].kind))].sort();
    const ranges = chosen.map((i) => `${units[i].start}-${units[i].end}`).join(";");
    const group = [...groups].sort().join("+") || "plain";
    out.push([name, verdict, group, kinds.join("+"), ranges]);
  }
  return out;
}

function main() {
  const paths = fs.readFileSync(0).toString("utf8").split("\0").filter(Boolean);
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const out = [`V\tTypeScript ${ts.version}`];
  for (const file of paths) {
    let text;
    try {
      const bytes = fs.readFileSync(path.join(root, file));
      text = decoder.decode(bytes);
    } catch (error) {
      out.push(`F\t${file}\trejected\t0\t${clean(error.message)}`);
      continue;
    }
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKind(file));
    const diagnostics = sf.parseDiagnostics || [];
    const errorLines = diagnostics.map((d) => sf.getLineAndCharacterOfPosition(d.start).line + 1);
    if (diagnostics.length > 0) {
      const message = ts.flattenDiagnosticMessageText(diagnostics[0].messageText, " ");
      out.push(`F\t${file}\terrors\t${errorLines[0]}\t${clean(message)}`);
    } else {
      out.push(`F\t${file}\tparsed`);
    }
    const walk = new FileWalk(sf);
    walk.statements(sf.statements, { prefix: "", kind: "module", inBlock: false, parent: null });
    for (const row of verdicts(walk, errorLines)) out.push(`S\t${file}\t${row.join("\t")}`);
  }
  process.stdout.write(out.map((line) => line + "\n").join(""));
}

if (!ts.version.startsWith("5.9.")) {
  process.stderr.write(`expected TypeScript 5.9, found ${ts.version}\n`);
  process.exit(2);
}
main();
