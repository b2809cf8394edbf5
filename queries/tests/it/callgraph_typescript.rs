//! The TS/JS call graph against hand-checked micro-cases, one small multi-file fixture per
//! shape, grouped by category (imports and re-exports, classes/this/super, the same names
//! in two folders, cycles, callbacks, overloads, CommonJS): a positive control first,
//! then keel's edges and unresolved sites per case with precision and recall per
//! category, then the expected edges against the TypeScript 5.9 checker (a test helper,
//! `tests/tsc/calls.cjs`, never part of keel), then incrementality from salsa's events.

use crate::support::{
    count, count_named, fresh_graph as graph_of, hashed_files, query_name, set_sources, source_tree,
};
use keel_engine::settings::DEFAULT_MAX_FILE_BYTES;
use keel_engine::{Db as _, KeelDatabase, Oid};
use keel_queries::callgraph::typescript::facts::{ts_exports, ts_facts};
use keel_queries::callgraph::typescript::module_specs;
use keel_queries::callgraph::typescript::modules::module_exports;
use keel_queries::callgraph::typescript::resolve::{ts_answers, ts_resolve};
use keel_queries::callgraph::{
    CallGraph, CallNode, NodeKind, call_graph, file_graph, graph_inputs, innermost, tree_paths,
};
use keel_queries::images::image_units;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One fixture: its files, the call edges a careful reader finds (caller, callee) and the
/// call sites that cannot resolve ((caller, callee as written)), both checked by hand.
struct Case {
    category: &'static str,
    name: &'static str,
    files: &'static [(&'static str, &'static str)],
    edges: &'static [(&'static str, &'static str)],
    unresolved: &'static [(&'static str, &'static str)],
    /// FIXME: expected edges keel does not find yet (each also in `edges`): keel's answer
    /// is asserted without them, and recall counts them as missed.
    misses: &'static [(&'static str, &'static str)],
    /// Edges the TypeScript checker reports differently, each with the reason (an edge
    /// prefixed `+` the checker adds, `-` one it lacks).
    checker_differs: &'static [(&'static str, &'static str)],
}

/// The graph of `files` when no file past `max_file_bytes` is parsed.
fn graph_within(files: &[(&str, &str)], max_file_bytes: u64) -> CallGraph {
    let db = KeelDatabase::detached();
    let files = hashed_files(&db, files);
    let tree = db.sources(graph_inputs(&files), max_file_bytes);
    call_graph(&db, tree).clone()
}

type Pair = (String, String);

fn edges_of(graph: &CallGraph) -> BTreeSet<Pair> {
    graph
        .edges
        .iter()
        .map(|edge| (edge.caller.to_string(), edge.callee.to_string()))
        .collect()
}

fn unresolved_of(graph: &CallGraph) -> BTreeSet<Pair> {
    graph
        .unresolved
        .iter()
        .map(|site| (site.caller.to_string(), site.callee_text.clone()))
        .collect()
}

fn pairs(items: &[(&str, &str)]) -> BTreeSet<Pair> {
    items
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn positive_control_a_known_caller_appears_and_a_non_caller_does_not() {
    let graph = graph_of(&[
        (
            "src/app.ts",
            "import { helper } from './lib';\n\nexport function run() {\n  return helper();\n}\n\nexport function idle() {\n  return 1;\n}\n",
        ),
        ("src/lib.ts", "export function helper() {\n  return 2;\n}\n"),
    ]);
    let edges = edges_of(&graph);
    let known = ("src/app.ts#run".to_owned(), "src/lib.ts#helper".to_owned());
    assert!(
        edges.contains(&known),
        "the control edge is missing: no comparison is meaningful: {edges:?}"
    );
    assert_eq!(edges.len(), 1, "idle calls nothing: {edges:?}");
    let site = graph.edges.first().expect("one edge");
    assert_eq!(site.sites, [4], "the call is on line 4");
    assert!(graph.unresolved.is_empty(), "{:?}", graph.unresolved);
}

const CASES: &[Case] = &[
    // ----- imports and re-exports -------------------------------------------------------
    Case {
        category: "imports",
        name: "named, default, namespace and aliased imports",
        files: &[
            (
                "src/util.ts",
                "export function helper() {\n  return 1;\n}\nexport default function main() {\n  return helper();\n}\nexport const arrow = () => helper();\n",
            ),
            (
                "src/app.ts",
                "import main, { helper as h, arrow } from './util';\nimport * as util from './util';\nimport { esm } from './esm.js';\n\nexport function run() {\n  h();\n  main();\n  arrow();\n  util.helper();\n  util.default();\n  esm();\n}\n",
            ),
            ("src/esm.ts", "export function esm() {\n  return 0;\n}\n"),
        ],
        edges: &[
            ("src/util.ts#main", "src/util.ts#helper"),
            ("src/util.ts#arrow", "src/util.ts#helper"),
            ("src/app.ts#run", "src/util.ts#helper"),
            ("src/app.ts#run", "src/util.ts#main"),
            ("src/app.ts#run", "src/util.ts#arrow"),
            ("src/app.ts#run", "src/esm.ts#esm"),
        ],
        unresolved: &[],
        misses: &[],
        checker_differs: &[],
    },
    Case {
        category: "imports",
        name: "export from, export *, export * as, re-exported default",
        files: &[
            (
                "lib/core.ts",
                "export function core() {\n  return 1;\n}\nexport class Engine {\n  start() {\n    return core();\n  }\n}\n",
            ),
            (
                "lib/extra.ts",
                "export function extra() {\n  return 2;\n}\n",
            ),
            (
                "lib/index.ts",
                "export { core as coreAlias } from './core';\nexport * from './extra';\nexport * as engine from './core';\nimport { Engine } from './core';\nexport { Engine };\nexport default Engine;\n",
            ),
            (
                "app.ts",
                "import { coreAlias, extra, engine, Engine } from './lib';\nimport Default from './lib/index';\n\nexport function go() {\n  coreAlias();\n  extra();\n  engine.core();\n  new Engine().start();\n  const e = new Default();\n  e.start();\n  engine.missing();\n}\n",
            ),
        ],
        edges: &[
            ("lib/core.ts#Engine.start", "lib/core.ts#core"),
            ("app.ts#go", "lib/core.ts#core"),
            ("app.ts#go", "lib/extra.ts#extra"),
            ("app.ts#go", "lib/core.ts#Engine.start"),
        ],
        unresolved: &[("app.ts#go", "engine.missing")],
        misses: &[],
        checker_differs: &[],
    },
    Case {
        category: "imports",
        name: "tsconfig paths and baseUrl; packages and builtins are external",
        files: &[
            (
                "tsconfig.json",
                "{\n  // comments and trailing commas, as tsconfig files are written\n  \"compilerOptions\": {\n    \"baseUrl\": \".\",\n    \"paths\": { \"@shared/*\": [\"shared/src/*\"], },\n  },\n}\n",
            ),
            (
                "shared/src/format.ts",
                "export function format() {\n  return '';\n}\n",
            ),
            (
                "src/util/strings.ts",
                "export function pad() {\n  return '';\n}\n",
            ),
            (
                "src/main.ts",
                "import { format } from '@shared/format';\nimport { pad } from 'src/util/strings';\nimport { readFileSync } from 'node:fs';\nimport * as path from 'path';\nimport React from 'react';\n\nexport function main() {\n  format();\n  pad();\n  readFileSync('x');\n  path.join('a');\n  React.createElement('div');\n  console.log(JSON.stringify([1].map(String)));\n  Math.max(1, 2);\n  new Promise(() => 1).then(() => 2);\n}\n",
            ),
        ],
        edges: &[
            ("src/main.ts#main", "shared/src/format.ts#format"),
            ("src/main.ts#main", "src/util/strings.ts#pad"),
        ],
        unresolved: &[],
        misses: &[],
        checker_differs: &[],
    },
    Case {
        category: "imports",
        name: "export { default } from, namespaces, import = require, export =, import type",
        files: &[
            (
                "shapes.ts",
                "export default class {\n  area() {\n    return 1;\n  }\n}\nexport namespace Geo {\n  export function dist() {\n    return 0;\n  }\n  export namespace Inner {\n    export function deep() {\n      return Geo.dist();\n    }\n  }\n}\n",
            ),
            (
                "legacy.ts",
                "function legacy() {\n  return 1;\n}\nexport = legacy;\n",
            ),
            (
                "reexp.ts",
                "export { default } from './shapes';\nexport { default as Shape, Geo } from './shapes';\n",
            ),
            (
                "kind.ts",
                "export interface Kind {\n  run(): void;\n}\nexport class Helper {\n  help() {}\n}\n",
            ),
            (
                "use.ts",
                "import Anon from './reexp';\nimport { Shape, Geo } from './reexp';\nimport legacy = require('./legacy');\nimport type { Kind, Helper } from './kind';\n\nexport function use(k: Kind, h: Helper) {\n  new Anon().area();\n  new Shape().area();\n  Geo.dist();\n  Geo.Inner.deep();\n  legacy();\n  k.run();\n  h.help();\n}\n",
            ),
        ],
        edges: &[
            ("shapes.ts#Geo.Inner.deep", "shapes.ts#Geo.dist"),
            ("use.ts#use", "shapes.ts#default.area"),
            ("use.ts#use", "shapes.ts#Geo.dist"),
            ("use.ts#use", "shapes.ts#Geo.Inner.deep"),
            ("use.ts#use", "legacy.ts#legacy"),
            ("use.ts#use", "kind.ts#Helper.help"),
        ],
        unresolved: &[("use.ts#use", "k.run")],
        misses: &[],
        checker_differs: &[],
    },
    Case {
        category: "imports",
        name: "object spreads, namespaces merged with functions, enums and imports, type aliases",
        files: &[
            (
                "ops.ts",
                "export function add() {}\nexport function sub() {}\n",
            ),
            (
                "registry.ts",
                "import * as ops from './ops';\n\nexport const api = {\n  ...ops,\n  extra() {\n    return 1;\n  },\n};\n\nexport function tools() {}\nexport namespace tools {\n  export function hammer() {}\n}\n\nexport enum Level {\n  Low,\n}\nexport namespace Level {\n  export function parse() {\n    return Level.Low;\n  }\n}\n",
            ),
            ("store.ts", "export class Store {\n  open() {}\n}\n"),
            (
                "types.ts",
                "import { Store } from './store';\n\nexport type Handle = Store;\n",
            ),
            (
                "use.ts",
                "import { api, tools, Level } from './registry';\nimport type { Handle } from './types';\n\nexport function go(h: Handle) {\n  api.add();\n  api.extra();\n  tools();\n  tools.hammer();\n  Level.parse();\n  h.open();\n}\n",
            ),
        ],
        edges: &[
            ("use.ts#go", "ops.ts#add"),
            ("use.ts#go", "registry.ts#<module>"),
            ("use.ts#go", "registry.ts#tools"),
            ("use.ts#go", "registry.ts#tools.hammer"),
            ("use.ts#go", "registry.ts#Level.parse"),
            ("use.ts#go", "store.ts#Store.open"),
        ],
        unresolved: &[],
        misses: &[],
        checker_differs: &[],
    },
    Case {
        category: "imports",
        name: "scripts (no import or export) share one global scope",
        files: &[
            ("web/util.js", "function fmt(x) {\n  return String(x);\n}\n"),
            (
                "web/app.js",
                "function main() {\n  fmt(1);\n  alert('x');\n}\n\nmain();\n",
            ),
        ],
        edges: &[
            ("web/app.js#main", "web/util.js#fmt"),
            ("web/app.js#<module>", "web/app.js#main"),
        ],
        unresolved: &[],
        misses: &[],
        checker_differs: &[],
    },
    // ----- classes, this, super ------------------------------------------------------------
    Case {
        category: "classes",
        name: "constructors (inherited), this and super through extends, static, #private",
        files: &[
            (
                "src/base.ts",
                "export class Base {\n  constructor() {\n    this.init();\n  }\n  init() {}\n  greet() {\n    return this.name();\n  }\n  name() {\n    return 'base';\n  }\n  static make() {\n    return new this();\n  }\n}\n",
            ),
            (
                "src/derived.ts",
                "import { Base } from './base';\n\nexport class Derived extends Base {\n  #secret() {\n    return 1;\n  }\n  name() {\n    return super.name() + this.#secret();\n  }\n  static build() {\n    return Derived.make();\n  }\n  run() {\n    this.greet();\n  }\n}\n\nexport class Leaf extends Derived {}\n\nexport function use() {\n  const d = new Derived();\n  d.run();\n  new Leaf().name();\n  Derived.build();\n  const l: Base = new Leaf();\n  l.greet();\n}\n",
            ),
            (
                "src/plain.ts",
                "export class Plain {\n  ping() {}\n}\nexport class Failure extends Error {\n  report() {\n    return this.toString() + this.message.trim();\n  }\n}\nexport function make() {\n  new Plain().ping();\n  new Failure('x').report();\n}\n",
            ),
        ],
        edges: &[
            ("src/base.ts#Base.constructor", "src/base.ts#Base.init"),
            ("src/base.ts#Base.greet", "src/base.ts#Base.name"),
            // Dispatch: `this` in `Base.greet` may be a `Derived`, which overrides `name`.
            ("src/base.ts#Base.greet", "src/derived.ts#Derived.name"),
            ("src/base.ts#Base.make", "src/base.ts#Base.constructor"),
            ("src/derived.ts#Derived.name", "src/base.ts#Base.name"),
            (
                "src/derived.ts#Derived.name",
                "src/derived.ts#Derived.#secret",
            ),
            ("src/derived.ts#Derived.build", "src/base.ts#Base.make"),
            ("src/derived.ts#Derived.run", "src/base.ts#Base.greet"),
            ("src/derived.ts#use", "src/base.ts#Base.constructor"),
            ("src/derived.ts#use", "src/derived.ts#Derived.run"),
            ("src/derived.ts#use", "src/derived.ts#Derived.name"),
            ("src/derived.ts#use", "src/derived.ts#Derived.build"),
            ("src/derived.ts#use", "src/base.ts#Base.greet"),
            ("src/plain.ts#make", "src/plain.ts#Plain.ping"),
            ("src/plain.ts#make", "src/plain.ts#Failure.report"),
        ],
        unresolved: &[],
        misses: &[],
        checker_differs: &[(
            "-src/base.ts#Base.greet -> src/derived.ts#Derived.name",
            "dispatch: the checker names the method `this.name` declares, not its override",
        )],
    },
    Case {
        category: "classes",
        name: "fields, parameter properties, typed parameters and class expressions",
        files: &[(
            "svc.ts",
            "export class Repo {\n  find() {}\n  save() {}\n}\n\nexport class Service {\n  private cache = new Map<string, number>();\n  private backup: Repo | undefined;\n  constructor(private repo: Repo, readonly other?: Repo) {\n    this.backup = new Repo();\n  }\n  handler = () => this.repo.find();\n  load() {\n    this.repo.find();\n    this.cache.get('x');\n    this.other?.save();\n    this.backup?.save();\n  }\n}\n\nexport function persist(repo: Repo, items: string[]) {\n  repo.save();\n  items.push('x');\n}\n\nexport const Widget = class {\n  render() {\n    return this.helper();\n  }\n  helper() {}\n};\n",
        )],
        edges: &[
            ("svc.ts#Service.handler", "svc.ts#Repo.find"),
            ("svc.ts#Service.load", "svc.ts#Repo.find"),
            ("svc.ts#Service.load", "svc.ts#Repo.save"),
            ("svc.ts#persist", "svc.ts#Repo.save"),
            ("svc.ts#Widget.render", "svc.ts#Widget.helper"),
        ],
        unresolved: &[],
        misses: &[],
        checker_differs: &[],
    },
    Case {
        category: "classes",
        name: "static inheritance and super in static methods across files; abstract methods",
        files: &[
            (
                "a.ts",
                "export class A {\n  constructor() {}\n  static create() {\n    return new A();\n  }\n  static log() {}\n}\n",
            ),
            (
                "b.ts",
                "import { A } from './a';\n\nexport class B extends A {\n  constructor() {\n    super();\n  }\n  static create() {\n    super.log();\n    return super.create();\n  }\n}\n\nexport function f() {\n  B.create();\n  B.log();\n}\n",
            ),
            (
                "shape.ts",
                "export abstract class Shape {\n  abstract area(): number;\n  describe() {\n    return this.area();\n  }\n}\n\nexport class Sq extends Shape {\n  area() {\n    return 1;\n  }\n}\n\nexport function total(s: Shape, q: Sq) {\n  s.area();\n  q.area();\n  q.describe();\n}\n",
            ),
            (
                "mixin.ts",
                "function mixin(base: any) {\n  return base;\n}\n\nexport class M extends mixin(Object) {\n  own() {\n    this.own2();\n    this.inherited();\n  }\n  own2() {}\n}\n",
            ),
        ],
        edges: &[
            ("a.ts#A.create", "a.ts#A.constructor"),
            ("b.ts#B.constructor", "a.ts#A.constructor"),
            ("b.ts#B.create", "a.ts#A.log"),
            ("b.ts#B.create", "a.ts#A.create"),
            ("b.ts#f", "b.ts#B.create"),
            ("b.ts#f", "a.ts#A.log"),
            ("shape.ts#Shape.describe", "shape.ts#Shape.area"),
            // Dispatch: the abstract method's one implementation.
            ("shape.ts#Shape.describe", "shape.ts#Sq.area"),
            ("shape.ts#total", "shape.ts#Shape.area"),
            ("shape.ts#total", "shape.ts#Sq.area"),
            ("shape.ts#total", "shape.ts#Shape.describe"),
            ("mixin.ts#<module>", "mixin.ts#mixin"),
            ("mixin.ts#M.own", "mixin.ts#M.own2"),
        ],
        unresolved: &[("mixin.ts#M.own", "this.inherited")],
        misses: &[],
        checker_differs: &[
            (
                "-shape.ts#Shape.describe -> shape.ts#Sq.area",
                "dispatch: the checker names the abstract declaration, not its implementation",
            ),
            (
                "-mixin.ts#<module> -> mixin.ts#mixin",
                "the helper names a caller by line: the heritage clause is on the class's first line",
            ),
            (
                "+mixin.ts#M -> mixin.ts#mixin",
                "the same site, named by its line",
            ),
        ],
    },
    Case {
        category: "classes",
        name: "return types, return this and casts carry instances through calls",
        files: &[
            (
                "builder.ts",
                "export class Query {\n  where(x: string): this {\n    return this;\n  }\n  limit(n: number) {\n    return this;\n  }\n  run() {\n    return [] as string[];\n  }\n}\n\nexport function query(): Query {\n  return new Query();\n}\n\nexport function make() {\n  return new Query();\n}\n",
            ),
            (
                "use.ts",
                "import { query, make, Query } from './builder';\n\nexport function find() {\n  query().where('a').limit(1).run().map(String);\n  make().run();\n  const q: Query = make();\n  q.where('b');\n  const cast = (globalThis as any).q as Query;\n  cast.run();\n}\n",
            ),
        ],
        edges: &[
            ("use.ts#find", "builder.ts#query"),
            ("use.ts#find", "builder.ts#make"),
            ("use.ts#find", "builder.ts#Query.where"),
            ("use.ts#find", "builder.ts#Query.limit"),
            ("use.ts#find", "builder.ts#Query.run"),
        ],
        unresolved: &[],
        misses: &[],
        checker_differs: &[],
    },
    // ----- the same names in two folders ---------------------------------------------------
    Case {
        category: "same names",
        name: "two util.ts with the same functions and classes",
        files: &[
            (
                "a/util.ts",
                "export function format() {\n  return 'a';\n}\nexport class Client {\n  send() {}\n}\n",
            ),
            (
                "b/util.ts",
                "export function format() {\n  return 'b';\n}\nexport class Client {\n  send() {}\n}\n",
            ),
            (
                "a/index.ts",
                "import { format, Client } from './util';\n\nexport function fa() {\n  format();\n  new Client().send();\n}\n",
            ),
            (
                "b/index.ts",
                "import { format, Client } from './util';\nimport { format as formatA } from '../a/util';\n\nexport function fb() {\n  format();\n  formatA();\n  new Client().send();\n}\n",
            ),
            (
                "main.ts",
                "import { fa } from './a';\nimport { fb } from './b';\nimport * as A from './a/util';\n\nexport function main() {\n  fa();\n  fb();\n  A.format();\n  const format = () => 1;\n  format();\n}\n",
            ),
        ],
        edges: &[
            ("a/index.ts#fa", "a/util.ts#format"),
            ("a/index.ts#fa", "a/util.ts#Client.send"),
            ("b/index.ts#fb", "b/util.ts#format"),
            ("b/index.ts#fb", "a/util.ts#format"),
            ("b/index.ts#fb", "b/util.ts#Client.send"),
            ("main.ts#main", "a/index.ts#fa"),
            ("main.ts#main", "b/index.ts#fb"),
            ("main.ts#main", "a/util.ts#format"),
            ("main.ts#main", "main.ts#main.format"),
        ],
        unresolved: &[],
        misses: &[],
        checker_differs: &[],
    },
    Case {
        category: "same names",
        name: "parameters and locals shadow imports of the same name",
        files: &[
            ("util.ts", "export function format() {\n  return '';\n}\n"),
            (
                "shadow.ts",
                "import { format } from './util';\n\nexport function g(format: (x: number) => string) {\n  return format(1);\n}\n\nexport function h() {\n  {\n    const format = () => 2;\n    format();\n  }\n  format();\n}\n\nexport function k() {\n  function format() {\n    return 3;\n  }\n  return format();\n}\n",
            ),
        ],
        edges: &[
            ("shadow.ts#h", "shadow.ts#h.format"),
            ("shadow.ts#h", "util.ts#format"),
            ("shadow.ts#k", "shadow.ts#k.format"),
        ],
        unresolved: &[("shadow.ts#g", "format")],
        misses: &[],
        checker_differs: &[],
    },
    // ----- cycles -------------------------------------------------------------------------
    Case {
        category: "cycles",
        name: "mutual recursion across modules, recursion, a barrel cycle, an export * cycle",
        files: &[
            (
                "even.ts",
                "import { isOdd } from './odd';\n\nexport function isEven(n: number): boolean {\n  return n === 0 ? true : isOdd(n - 1);\n}\n",
            ),
            (
                "odd.ts",
                "import { isEven } from './even';\n\nexport function isOdd(n: number): boolean {\n  return n === 0 ? false : isEven(n - 1);\n}\n",
            ),
            (
                "rec.ts",
                "export function fact(n: number): number {\n  return n <= 1 ? 1 : n * fact(n - 1);\n}\n",
            ),
            ("x/index.ts", "export * from './a';\nexport * from './b';\n"),
            (
                "x/a.ts",
                "import { b } from './index';\n\nexport function a() {\n  b();\n}\n",
            ),
            (
                "x/b.ts",
                "import { a } from '.';\n\nexport function b() {\n  a();\n}\n",
            ),
            (
                "s1.ts",
                "export * from './s2';\nexport function one() {\n  return 1;\n}\n",
            ),
            (
                "s2.ts",
                "export * from './s1';\nexport function two() {\n  return 2;\n}\n",
            ),
            (
                "use.ts",
                "import { one, two } from './s1';\nimport * as s2 from './s2';\n\nexport function u() {\n  one();\n  two();\n  s2.one();\n  s2.three();\n}\n",
            ),
        ],
        edges: &[
            ("even.ts#isEven", "odd.ts#isOdd"),
            ("odd.ts#isOdd", "even.ts#isEven"),
            ("rec.ts#fact", "rec.ts#fact"),
            ("x/a.ts#a", "x/b.ts#b"),
            ("x/b.ts#b", "x/a.ts#a"),
            ("use.ts#u", "s1.ts#one"),
            ("use.ts#u", "s2.ts#two"),
        ],
        unresolved: &[("use.ts#u", "s2.three")],
        misses: &[],
        checker_differs: &[],
    },
    // ----- callbacks ----------------------------------------------------------------------
    Case {
        category: "callbacks",
        name: "callbacks, IIFEs, local functions and object-literal handlers",
        files: &[
            (
                "log.ts",
                "export function log(x: unknown) {\n  return x;\n}\n",
            ),
            (
                "cb.ts",
                "import { log } from './log';\n\nexport function each(items: number[], fn: (n: number) => void) {\n  items.forEach(fn);\n  fn(items[0]);\n}\n\nexport function main() {\n  each([1], (n) => log(n));\n  [1, 2].map(function (x) {\n    return log(x);\n  });\n  setTimeout(() => log(0), 1);\n  const handler = () => log(1);\n  handler();\n  (function () {\n    log(2);\n  })();\n  return new Promise((resolve) => {\n    resolve(1);\n    log(3);\n  });\n}\n\nconst handlers = {\n  onA() {\n    log(4);\n  },\n  onB: () => log(5),\n};\n\nexport function dispatch() {\n  handlers.onA();\n  handlers.onB();\n}\n",
            ),
            (
                "view.tsx",
                "import { log } from './log';\n\nexport function Button() {\n  return <button onClick={() => log('click')}>go</button>;\n}\n",
            ),
        ],
        edges: &[
            ("cb.ts#main", "cb.ts#each"),
            ("cb.ts#main", "log.ts#log"),
            ("cb.ts#main", "cb.ts#main.handler"),
            ("cb.ts#main.handler", "log.ts#log"),
            ("cb.ts#<module>", "log.ts#log"),
            ("cb.ts#dispatch", "cb.ts#<module>"),
            ("view.tsx#Button", "log.ts#log"),
        ],
        unresolved: &[("cb.ts#each", "fn"), ("cb.ts#main", "resolve")],
        misses: &[],
        checker_differs: &[],
    },
    Case {
        category: "callbacks",
        name: "functions passed by name; what external code returns is unknown; async results",
        files: &[(
            "flow.ts",
            "import express from 'express';\n\nfunction step(x: number) {\n  return x;\n}\n\nexport function apply(f: (x: number) => number) {\n  return [1].map(f).filter(Boolean).map(step);\n}\n\nexport async function load() {\n  const app = express();\n  app.listen(80);\n  document.getElementById('x')?.focus();\n  const text = await fetch('/x').then((r) => r.text());\n  return apply(step) + text.length;\n}\n\nexport function later() {\n  return load().then(() => step(1));\n}\n",
        )],
        edges: &[
            ("flow.ts#load", "flow.ts#apply"),
            ("flow.ts#later", "flow.ts#load"),
            ("flow.ts#later", "flow.ts#step"),
        ],
        unresolved: &[
            ("flow.ts#apply", "[1].map(f).filter"),
            ("flow.ts#apply", "[1].map(f).filter(Boolean).map"),
            ("flow.ts#load", "app.listen"),
            ("flow.ts#load", "document.getElementById('x')?.focus"),
            ("flow.ts#load", "fetch('/x').then"),
            ("flow.ts#load", "r.text"),
        ],
        misses: &[],
        checker_differs: &[],
    },
    Case {
        category: "callbacks",
        name: "this in arrows, self aliases, bound methods, typed callback parameters",
        files: &[(
            "widget.ts",
            "export class Widget {\n  handle() {}\n  bind(el: { on(e: string, f: () => void): void }) {\n    el.on('click', () => this.handle());\n    el.on('key', function () {\n      return 1;\n    });\n    setTimeout(this.handle.bind(this), 1);\n    const self = this;\n    [1].forEach(function () {\n      self.handle();\n    });\n  }\n}\n",
        )],
        edges: &[("widget.ts#Widget.bind", "widget.ts#Widget.handle")],
        unresolved: &[("widget.ts#Widget.bind", "el.on")],
        misses: &[],
        checker_differs: &[],
    },
    // ----- overloads ----------------------------------------------------------------------
    Case {
        category: "overloads",
        name: "function, method and constructor overloads are one node each",
        files: &[
            (
                "parse.ts",
                "export function parse(x: string): string;\nexport function parse(x: number): number;\nexport function parse(x: unknown): unknown {\n  return normalize(x);\n}\n\nfunction normalize(x: unknown) {\n  return x;\n}\n\nexport class Parser {\n  constructor(a: string);\n  constructor(a: number);\n  constructor(a: unknown) {}\n  read(x: string): string;\n  read(x: number): number;\n  read(x: unknown): unknown {\n    return parse(x as string);\n  }\n}\n",
            ),
            (
                "use.ts",
                "import { parse, Parser } from './parse';\n\ndeclare function ambient(x: string): void;\n\nexport function use() {\n  parse('a');\n  parse(1);\n  const p = new Parser('x');\n  p.read(2);\n  ambient('a');\n}\n",
            ),
        ],
        edges: &[
            ("parse.ts#parse", "parse.ts#normalize"),
            ("parse.ts#Parser.read", "parse.ts#parse"),
            ("use.ts#use", "parse.ts#parse"),
            ("use.ts#use", "parse.ts#Parser.constructor"),
            ("use.ts#use", "parse.ts#Parser.read"),
        ],
        unresolved: &[],
        misses: &[],
        checker_differs: &[],
    },
    // ----- CommonJS -----------------------------------------------------------------------
    Case {
        category: "commonjs",
        name: "require, module.exports, exports.x, destructuring and ES interop",
        files: &[
            (
                "lib/math.js",
                "function add(a, b) {\n  return a + b;\n}\nfunction twice(x) {\n  return add(x, x);\n}\nmodule.exports = { add, twice };\n",
            ),
            (
                "lib/str.js",
                "exports.upper = function (s) {\n  return s.toUpperCase();\n};\nexports.shout = function (s) {\n  return exports.upper(s) + '!';\n};\n",
            ),
            (
                "lib/Counter.js",
                "class Counter {\n  constructor() {\n    this.n = 0;\n  }\n  inc() {\n    this.n += 1;\n    return this;\n  }\n}\nmodule.exports = Counter;\n",
            ),
            (
                "app.js",
                "const math = require('./lib/math');\nconst { twice } = require('./lib/math');\nconst str = require('./lib/str');\nconst Counter = require('./lib/Counter');\nconst fs = require('fs');\n\nfunction main() {\n  math.add(1, 2);\n  twice(3);\n  str.shout('a');\n  const c = new Counter();\n  c.inc();\n  fs.readFileSync('x');\n  require('./lib/str').upper('b');\n}\n\nmodule.exports = main;\n",
            ),
            (
                "esm.ts",
                "import Counter from './lib/Counter';\nimport { add } from './lib/math';\n\nexport function viaEsm() {\n  add(1, 2);\n  new Counter().inc();\n}\n",
            ),
        ],
        edges: &[
            ("lib/math.js#twice", "lib/math.js#add"),
            ("app.js#main", "lib/math.js#add"),
            ("app.js#main", "lib/math.js#twice"),
            ("app.js#main", "lib/str.js#<module>"),
            ("app.js#main", "lib/Counter.js#Counter.constructor"),
            ("app.js#main", "lib/Counter.js#Counter.inc"),
            ("esm.ts#viaEsm", "lib/math.js#add"),
            ("esm.ts#viaEsm", "lib/Counter.js#Counter.constructor"),
            ("esm.ts#viaEsm", "lib/Counter.js#Counter.inc"),
        ],
        unresolved: &[("lib/str.js#<module>", "s.toUpperCase")],
        misses: &[],
        checker_differs: &[],
    },
    Case {
        category: "commonjs",
        name: "exports.x = f, renamed destructuring, module.exports = function",
        files: &[
            (
                "lib/run.js",
                "function run() {\n  return helper();\n}\nfunction helper() {\n  return 1;\n}\nmodule.exports.helper = helper;\nexports.run = run;\n",
            ),
            (
                "lib/fn.js",
                "module.exports = function main() {\n  return 2;\n};\n",
            ),
            (
                "use.js",
                "const { run: go, helper } = require('./lib/run');\nconst fn = require('./lib/fn');\n\ngo();\nhelper();\nfn();\nrequire('./lib/fn')();\n",
            ),
        ],
        edges: &[
            ("lib/run.js#run", "lib/run.js#helper"),
            ("use.js#<module>", "lib/run.js#run"),
            ("use.js#<module>", "lib/run.js#helper"),
            ("use.js#<module>", "lib/fn.js#<module>"),
        ],
        unresolved: &[],
        misses: &[],
        checker_differs: &[],
    },
    Case {
        category: "classes",
        name: "limits: generic containers and narrowing (the checker's types, not keel's)",
        files: &[(
            "registry.ts",
            "export class Store {\n  open() {}\n}\n\nexport class Registry {\n  private stores = new Map<string, Store>();\n  openAll(items: unknown[]) {\n    this.stores.get('a')?.open();\n    for (const item of items) {\n      if (item instanceof Store) {\n        item.open();\n      }\n    }\n  }\n}\n",
        )],
        edges: &[("registry.ts#Registry.openAll", "registry.ts#Store.open")],
        unresolved: &[
            ("registry.ts#Registry.openAll", "item.open"),
            ("registry.ts#Registry.openAll", "this.stores.get('a')?.open"),
        ],
        misses: &[("registry.ts#Registry.openAll", "registry.ts#Store.open")],
        checker_differs: &[],
    },
    Case {
        category: "callbacks",
        name: "limits: a callback called by the function it is passed to",
        files: &[(
            "each.ts",
            "export function each(fn: () => void) {\n  fn();\n}\n\nexport function main() {\n  each(() => {\n    main();\n  });\n}\n",
        )],
        edges: &[
            ("each.ts#main", "each.ts#each"),
            ("each.ts#main", "each.ts#main"),
            ("each.ts#each", "each.ts#main"),
        ],
        unresolved: &[("each.ts#each", "fn")],
        misses: &[("each.ts#each", "each.ts#main")],
        checker_differs: &[(
            "-each.ts#each -> each.ts#main",
            "the checker resolves `fn()` to the parameter's function type",
        )],
    },
];

/// Precision and recall counts of one category.
#[derive(Default)]
struct Score {
    cases: usize,
    found: usize,
    expected: usize,
    correct: usize,
}

impl Score {
    fn add(&mut self, found: &BTreeSet<Pair>, expected: &BTreeSet<Pair>) {
        self.cases += 1;
        self.found += found.len();
        self.expected += expected.len();
        self.correct += found.intersection(expected).count();
    }

    fn ratio(part: usize, whole: usize) -> f64 {
        if whole == 0 {
            1.0
        } else {
            f64::from(u32::try_from(part).unwrap_or(u32::MAX))
                / f64::from(u32::try_from(whole).unwrap_or(u32::MAX))
        }
    }

    fn line(&self, name: &str) -> String {
        format!(
            "{name:<12} cases {:>2}  expected {:>3}  keel {:>3}  precision {:.3}  recall {:.3}",
            self.cases,
            self.expected,
            self.found,
            Self::ratio(self.correct, self.found),
            Self::ratio(self.correct, self.expected),
        )
    }
}

#[test]
fn micro_cases_give_their_hand_checked_edges_and_unresolved_sites() {
    let mut scores: BTreeMap<&str, Score> = BTreeMap::new();
    let mut overall = Score::default();
    let mut failures = Vec::new();
    for case in CASES {
        let graph = graph_of(case.files);
        let found = edges_of(&graph);
        let expected = pairs(case.edges);
        scores
            .entry(case.category)
            .or_default()
            .add(&found, &expected);
        overall.add(&found, &expected);
        let misses = pairs(case.misses);
        assert!(
            misses.is_subset(&expected),
            "{}: a miss is an expected edge",
            case.name
        );
        let expected: BTreeSet<Pair> = expected.difference(&misses).cloned().collect();
        if found != expected {
            failures.push(format!(
                "{}: missing {:?}, extra {:?}",
                case.name,
                expected.difference(&found).collect::<Vec<_>>(),
                found.difference(&expected).collect::<Vec<_>>()
            ));
        }
        let unresolved = unresolved_of(&graph);
        if unresolved != pairs(case.unresolved) {
            failures.push(format!("{}: unresolved {unresolved:?}", case.name));
        }
        if !graph.partial.is_empty() {
            failures.push(format!("{}: parsed in part {:?}", case.name, graph.partial));
        }
    }
    println!("keel against the hand-checked TS/JS edges:");
    for (category, score) in &scores {
        println!("  {}", score.line(category));
    }
    println!("  {}", overall.line("overall"));
    assert!(failures.is_empty(), "{failures:#?}");
}

// ----- the TypeScript checker as a second opinion on the expected edges -------------------

/// The npm package the checker runs on, and where it is installed (outside the sources).
const TYPESCRIPT: &str = "typescript@5.9";

fn node_cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("callgraph-ts")
        .join("node")
}

/// Runs `program` with `args` in `dir`: its stdout, or `Err` (the reason) when it cannot
/// start or fails.
fn run(program: &str, args: &[&str], dir: &Path) -> Result<String, String> {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|error| format!("cannot run {program}: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "{program} {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    String::from_utf8(output.stdout).map_err(|error| format!("{program}: {error}"))
}

/// The installed TypeScript module folder, installing it with npm when absent; `Err`
/// (the reason) when node or npm cannot run.
fn typescript_module() -> Result<PathBuf, String> {
    let cache = node_cache();
    std::fs::create_dir_all(&cache).map_err(|error| format!("{}: {error}", cache.display()))?;
    run("node", &["--version"], &cache)?;
    let module = cache.join("node_modules").join("typescript");
    let manifest = std::fs::read_to_string(module.join("package.json")).unwrap_or_default();
    if manifest.contains("\"version\": \"5.9.") {
        return Ok(module);
    }
    let package = cache.join("package.json");
    if !package.exists() {
        std::fs::write(&package, "{\"private\": true}\n")
            .map_err(|error| format!("{}: {error}", package.display()))?;
    }
    println!("installing {TYPESCRIPT} into {}", cache.display());
    run(
        "npm",
        &[
            "install",
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--loglevel=error",
            TYPESCRIPT,
        ],
        &cache,
    )?;
    Ok(module)
}

/// What the checker says one site calls.
#[derive(serde::Deserialize)]
struct CheckerSite {
    root: usize,
    file: String,
    line: u32,
    status: String,
    target: Option<CheckerTarget>,
}

#[derive(serde::Deserialize)]
struct CheckerTarget {
    file: String,
    line: u32,
    named: bool,
}

/// The innermost node holding `line`; of nodes with the same lines, a unit rather than the
/// module node (a function that spans its whole file).
fn innermost_unit(nodes: &[CallNode], line: u32) -> Option<&CallNode> {
    let units: Vec<CallNode> = nodes
        .iter()
        .filter(|node| node.kind != NodeKind::Module)
        .cloned()
        .collect();
    match innermost(&units, line) {
        Some(unit) => nodes.iter().find(|node| node.id == unit.id),
        None => innermost(nodes, line),
    }
}

/// Every case's files under `root/<index>/`.
fn write_cases(root: &Path) -> Result<Vec<String>, String> {
    let mut roots = Vec::new();
    for (index, case) in CASES.iter().enumerate() {
        let dir = root.join(index.to_string());
        for (path, text) in case.files {
            let file = dir.join(path);
            if let Some(parent) = file.parent() {
                std::fs::create_dir_all(parent).map_err(|error| error.to_string())?;
            }
            std::fs::write(&file, text).map_err(|error| error.to_string())?;
        }
        roots.push(dir.to_string_lossy().into_owned());
    }
    Ok(roots)
}

/// The checker's edges for every case (by index), mapped onto keel's nodes: a site's
/// caller is the innermost node holding its line, a target's callee the innermost node
/// holding the declaration's first line; code the caller itself holds is no edge.
fn checker_edges(module: &Path) -> Result<Vec<BTreeSet<Pair>>, String> {
    let root = tempfile::tempdir().map_err(|error| error.to_string())?;
    let roots = write_cases(root.path())?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("tsc")
        .join("calls.cjs");
    let mut args = vec![
        script.to_string_lossy().into_owned(),
        module.to_string_lossy().into_owned(),
    ];
    args.extend(roots);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = run("node", &args, root.path())?;
    let nodes: Vec<BTreeMap<String, Vec<CallNode>>> = CASES
        .iter()
        .map(|case| {
            let mut by_file: BTreeMap<String, Vec<CallNode>> = BTreeMap::new();
            for node in graph_of(case.files).nodes {
                // The file part: before the first `#` (a `#private` name holds another).
                let path = node
                    .id
                    .as_str()
                    .split_once('#')
                    .map_or("", |(path, _)| path);
                by_file.entry(path.to_owned()).or_default().push(node);
            }
            by_file
        })
        .collect();
    let mut edges = vec![BTreeSet::new(); CASES.len()];
    for line in output.lines() {
        let site: CheckerSite = serde_json::from_str(line).map_err(|error| error.to_string())?;
        let (Some(target), "edge") = (site.target, site.status.as_str()) else {
            continue;
        };
        let Some(nodes) = nodes.get(site.root) else {
            return Err(format!("no case {}", site.root));
        };
        let node_at = |file: &str, line: u32| -> Option<&CallNode> {
            nodes
                .get(file)
                .and_then(|nodes| innermost_unit(nodes, line))
        };
        let (Some(caller), Some(callee)) = (
            node_at(&site.file, site.line),
            node_at(&target.file, target.line),
        ) else {
            continue;
        };
        // A call of code the caller itself holds (a callback, an IIFE, a local object's
        // method) is part of the caller: only a declaration that is the node itself (its
        // first line, a named callable) makes a self-edge (recursion).
        let recursion = target.named && target.line == callee.start_line;
        if caller.id == callee.id && (!recursion || callee.kind == NodeKind::Module) {
            continue;
        }
        edges[site.root].insert((caller.id.to_string(), callee.id.to_string()));
    }
    Ok(edges)
}

#[test]
fn hand_checked_edges_agree_with_the_typescript_checker() {
    let module = match typescript_module() {
        Ok(module) => module,
        Err(reason) => {
            println!("skipped: the TypeScript checker is unavailable ({reason})");
            return;
        }
    };
    let checker = checker_edges(&module).unwrap_or_else(|reason| panic!("the checker: {reason}"));
    let mut failures = Vec::new();
    let mut agree = 0;
    let mut total = 0;
    for (case, checker) in CASES.iter().zip(&checker) {
        let mut expected = pairs(case.edges);
        for (edge, _reason) in case.checker_differs {
            let (sign, edge) = edge.split_at(1);
            let (caller, callee) = edge.split_once(" -> ").unwrap_or((edge, ""));
            let pair = (caller.to_owned(), callee.to_owned());
            if sign == "+" {
                expected.insert(pair);
            } else {
                expected.remove(&pair);
            }
        }
        total += expected.len();
        agree += expected.intersection(checker).count();
        if *checker != expected {
            failures.push(format!(
                "{}: the checker lacks {:?} and adds {:?}",
                case.name,
                expected.difference(checker).collect::<Vec<_>>(),
                checker.difference(&expected).collect::<Vec<_>>()
            ));
        }
    }
    println!("the TypeScript 5.9 checker confirms {agree} of {total} hand-checked edges");
    assert!(failures.is_empty(), "{failures:#?}");
}

// ----- incrementality -------------------------------------------------------------------

const INC_A: &str = "import { helper, Store } from './b';\n\nexport function run() {\n  helper();\n  new Store().put();\n}\n";
const INC_B: &str = "export function helper() {\n  return 1;\n}\n\nexport class Store {\n  put() {\n    return helper();\n  }\n}\n";
/// `helper`'s body edited (one line longer): `Store` moves down, the interface stays.
const INC_B_BODY: &str = "export function helper() {\n  const x = 2;\n  return x;\n}\n\nexport class Store {\n  put() {\n    return helper();\n  }\n}\n";
/// One more export: the interface changes, but not in anything `a.ts` uses.
const INC_B_MORE: &str = "export function helper() {\n  const x = 2;\n  return x;\n}\n\nexport class Store {\n  put() {\n    return helper();\n  }\n}\n\nexport function extra() {}\n";
/// `helper` renamed: what `a.ts` imports is gone.
const INC_B_RENAMED: &str = "export function helper2() {\n  const x = 2;\n  return x;\n}\n\nexport class Store {\n  put() {\n    return helper2();\n  }\n}\n\nexport function extra() {}\n";
const INC_C: &str = "export function alone() {\n  console.log('c');\n}\n";
const INC_D: &str = "import { run } from './a';\n\nrun();\n";

fn inc_files(db: &KeelDatabase, b: &str) -> Vec<(String, Oid)> {
    let mut files = hashed_files(
        db,
        &[
            ("a.ts", INC_A),
            ("b.ts", b),
            ("c.ts", INC_C),
            ("d.ts", INC_D),
        ],
    );
    files.sort();
    files
}

#[test]
fn editing_one_function_body_reparses_one_file_and_re_resolves_only_its_sites() {
    let mut db = KeelDatabase::detached();
    let tree = db.sources(graph_inputs(&inc_files(&db, INC_B)), DEFAULT_MAX_FILE_BYTES);
    let cold = call_graph(&db, tree).clone();
    let log = db.take_executed_queries();
    // The control: a cold graph reads, answers and resolves every file.
    for query in [
        query_name(ts_facts),
        query_name(ts_exports),
        query_name(ts_answers),
        query_name(ts_resolve),
        query_name(file_graph),
    ] {
        assert_eq!(count_named(&log, query), 4, "{query}: {log:?}");
    }
    assert!(count(&log, module_specs) > 0, "{log:?}");
    assert!(edges_of(&cold).contains(&("a.ts#run".to_owned(), "b.ts#helper".to_owned())));

    // Nothing changed: nothing runs.
    assert_eq!(call_graph(&db, tree), &cold);
    let log = db.take_executed_queries();
    assert!(log.is_empty(), "{log:?}");

    // A body edit: b.ts is parsed and resolved again, no other file is.
    let body = inc_files(&db, INC_B_BODY);
    set_sources(&mut db, tree, body.clone());
    let warm = call_graph(&db, tree).clone();
    let log = db.take_executed_queries();
    assert_eq!(count(&log, ts_facts), 1, "only b.ts is parsed: {log:?}");
    assert_eq!(count(&log, ts_exports), 1, "{log:?}");
    assert_eq!(
        count(&log, module_exports),
        1,
        "b.ts's equal interface backdates: {log:?}"
    );
    assert_eq!(count(&log, ts_answers), 1, "only b.ts asks again: {log:?}");
    assert_eq!(count(&log, ts_resolve), 1, "only b.ts's sites: {log:?}");
    assert_eq!(count(&log, file_graph), 1, "{log:?}");
    assert_eq!(count(&log, tree_paths), 1, "{log:?}");
    assert_eq!(
        count(&log, module_specs),
        0,
        "no path changed, so no import is looked up again: {log:?}"
    );
    assert_eq!(
        warm,
        graph_from(&db, &body),
        "a warm answer equals a cold one"
    );
    assert_ne!(warm.nodes, cold.nodes, "Store moved down a line");
    assert_eq!(edges_of(&warm), edges_of(&cold));

    // A new export nothing imports: the files importing b.ts answer again, equally, and
    // nothing is re-resolved but b.ts.
    let more = inc_files(&db, INC_B_MORE);
    set_sources(&mut db, tree, more.clone());
    let log_graph = call_graph(&db, tree).clone();
    let log = db.take_executed_queries();
    assert_eq!(count(&log, ts_facts), 1, "{log:?}");
    assert_eq!(count(&log, module_exports), 1, "{log:?}");
    assert_eq!(
        count(&log, ts_answers),
        2,
        "b.ts and its importer a.ts: {log:?}"
    );
    assert_eq!(
        count(&log, ts_resolve),
        1,
        "a.ts's answers are equal: {log:?}"
    );
    assert_eq!(log_graph, graph_from(&db, &more));

    // A rename of what a.ts imports: a.ts's answers change and its sites resolve again.
    let renamed = inc_files(&db, INC_B_RENAMED);
    set_sources(&mut db, tree, renamed.clone());
    let after = call_graph(&db, tree).clone();
    let log = db.take_executed_queries();
    assert_eq!(count(&log, ts_answers), 2, "{log:?}");
    assert_eq!(count(&log, ts_resolve), 2, "b.ts and a.ts: {log:?}");
    assert_eq!(after, graph_from(&db, &renamed));
    assert_eq!(
        unresolved_of(&after),
        pairs(&[("a.ts#run", "helper")]),
        "the import of a name b.ts no longer exports is unresolved"
    );
}

/// The graph of `files` in a new tree of the same database (a cold answer to compare).
fn graph_from(db: &KeelDatabase, files: &[(String, Oid)]) -> CallGraph {
    let fresh = KeelDatabase::detached();
    let files: Vec<(String, Oid)> = files
        .iter()
        .map(|(path, oid)| {
            let bytes = db.objects().blob(*oid).expect("hashed blob");
            (path.clone(), fresh.objects().insert_blob(&bytes))
        })
        .collect();
    let tree = fresh.sources(graph_inputs(&files), DEFAULT_MAX_FILE_BYTES);
    call_graph(&fresh, tree).clone()
}

// ----- naming and tolerance -------------------------------------------------------------

/// Every shape the extractor names (or leaves out) with a call inside: the caller keel
/// names must be the unit the extractor has there (the innermost node holding the line,
/// one unit per line here), never a name of its own.
const SHAPES: &str = "\
namespace NS {
  export function inner() {
    helper();
  }
}
if (flag) {
  var viaVar = function () {
    helper();
  };
  function blockFn() {
    helper();
  }
}
export default class {
  run() {
    helper();
  }
}
const Widget = class {
  render() {
    helper();
  }
};
function outer() {
  describe(() => {
    function callback() {
      helper();
    }
  });
  if (flag) {
    function nested() {
      helper();
    }
  }
  const arrow = () => {
    helper();
  };
  return [arrow, Widget];
}
class K {
  field = helper();
  static s = helper();
  static {
    helper();
  }
  handler = () => {
    helper();
  };
  get value() {
    return helper();
  }
  #hidden() {
    helper();
  }
}
for (var i = 0, step = () => helper(); i < 1; i++) {}
export function helper() {}
declare const flag: boolean;
declare function describe(f: () => void): void;
";

#[test]
fn callers_are_the_extractors_units_holding_their_lines() {
    let graph = graph_of(&[("shapes.ts", SHAPES)]);
    let nodes: Vec<CallNode> = graph.nodes.clone();
    let mut callers = BTreeSet::new();
    for edge in &graph.edges {
        assert_eq!(edge.callee.as_str(), "shapes.ts#helper", "{edge:?}");
        for &line in &edge.sites {
            let holder = innermost_unit(&nodes, line).expect("a node holds every line");
            assert_eq!(holder.id, edge.caller, "line {line}");
        }
        callers.insert(edge.caller.as_str().to_owned());
    }
    let expected: BTreeSet<String> = [
        "NS.inner",
        "viaVar",
        "<module>",
        "default.run",
        "Widget.render",
        "outer",
        "outer.nested",
        "outer.arrow",
        "K",
        "K.handler",
        "K.value",
        "K.#hidden",
        "step",
    ]
    .iter()
    .map(|name| format!("shapes.ts#{name}"))
    .collect();
    assert_eq!(callers, expected);
    assert!(graph.unresolved.is_empty(), "{:?}", graph.unresolved);
}

#[test]
fn a_file_that_parses_in_part_keeps_the_calls_of_its_standing_parts() {
    let graph = graph_of(&[
        (
            "a.ts",
            "import { helper } from './b';\n\nexport function ok() {\n  helper();\n}\n\nconst x = ;\n\nexport function alsoOk() {\n  helper();\n}\n",
        ),
        ("b.ts", "export function helper() {}\n"),
        ("c.js", "function f() {}\nf(\u{0}\n"),
    ]);
    assert_eq!(graph.partial, ["a.ts", "c.js"]);
    assert_eq!(
        edges_of(&graph),
        pairs(&[("a.ts#ok", "b.ts#helper"), ("a.ts#alsoOk", "b.ts#helper")])
    );
    let db = KeelDatabase::detached();
    let latin1 = vec![(
        "d.ts".to_owned(),
        db.objects().insert_blob(b"const s = \"\xe9\";\nfoo();\n"),
    )];
    let tree = db.sources(graph_inputs(&latin1), DEFAULT_MAX_FILE_BYTES);
    let graph = call_graph(&db, tree);
    assert_eq!(
        graph.partial,
        ["d.ts"],
        "not UTF-8: nothing is read, the file is listed"
    );
    assert!(graph.edges.is_empty() && graph.unresolved.is_empty());
}

#[test]
fn a_module_past_the_bound_is_its_module_node_and_calls_into_it_are_unresolved() {
    let big = "// padding padding padding padding padding padding\nexport function f() { return 1; }\nexport class C { m() { return f(); } }\n";
    let main =
        "import { f, C } from \"./big\";\nexport function main() { new C().m(); return f(); }\n";
    let files = [("big.ts", big), ("main.ts", main)];
    // Control: within the default bound every call resolves.
    let read = graph_of(&files);
    assert_eq!(
        edges_of(&read),
        pairs(&[
            ("big.ts#C.m", "big.ts#f"),
            ("main.ts#main", "big.ts#C.m"),
            ("main.ts#main", "big.ts#f"),
        ])
    );
    // big.ts is past a bound main.ts is within: nothing of it is read.
    assert!(main.len() < 100 && big.len() > 100);
    let bounded = graph_within(&files, 100);
    let ids: Vec<&str> = bounded.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, ["big.ts#<module>", "main.ts#<module>", "main.ts#main"]);
    assert_eq!(bounded.partial, ["big.ts"]);
    assert!(edges_of(&bounded).is_empty(), "{bounded:#?}");
    assert!(
        unresolved_of(&bounded).contains(&("main.ts#main".to_owned(), "f".to_owned())),
        "{bounded:#?}"
    );
}

/// A threaded graph reads each file's facts on the thread that parsed it, from the tree
/// that parse just made. A thread keeps parse hints for at most `MAX_HINTS` files, so
/// facts read in a later phase, on whichever thread takes the file then, parsed most
/// files a second time (on vscode-languageserver-node, half of a cold graph's time).
#[test]
fn a_threaded_graph_reads_each_files_facts_on_the_thread_that_parsed_it() {
    let db = KeelDatabase::detached();
    let sources: Vec<(String, String)> = (0..3 * keel_queries::extract::MAX_HINTS)
        .map(|at| {
            let next = (at + 1) % (3 * keel_queries::extract::MAX_HINTS);
            (
                format!("m{at:03}.ts"),
                format!(
                    "import {{ f{next} }} from './m{next:03}';\nexport function f{at}() {{\n  return f{next};\n}}\nexport function g{at}() {{\n  f{at}();\n}}\n"
                ),
            )
        })
        .collect();
    let named: Vec<(&str, &str)> = sources
        .iter()
        .map(|(path, text)| (path.as_str(), text.as_str()))
        .collect();
    let files = hashed_files(&db, &named);
    let tree = db.sources(graph_inputs(&files), DEFAULT_MAX_FILE_BYTES);
    let threaded = keel_queries::callgraph::call_graph_on_threads(&db, tree, 2).clone();
    let executions = db.take_executions();
    assert_eq!(
        threaded,
        graph_of(&named),
        "threads do not change the answer"
    );
    let parsed_on: BTreeMap<_, _> = executions
        .iter()
        .filter(|(_, query, _)| query == query_name(image_units))
        .map(|(thread, _, key)| (*key, *thread))
        .collect();
    let facts: Vec<_> = executions
        .iter()
        .filter(|(_, query, _)| query == query_name(ts_facts))
        .collect();
    // The control: every file was parsed and read once.
    assert_eq!(parsed_on.len(), files.len(), "{executions:?}");
    assert_eq!(facts.len(), files.len(), "{executions:?}");
    for (thread, _, key) in facts {
        assert_eq!(
            parsed_on.get(key),
            Some(thread),
            "facts of image {key:?} read on another thread than its parse"
        );
    }
}

/// An edit of one file is answered on the calling thread (no parse to share out; helpers
/// would only re-check every file's memos), a new tree on helper threads.
#[test]
fn a_threaded_graph_answers_a_one_file_edit_on_the_calling_thread() {
    let mut db = KeelDatabase::detached();
    let texts: Vec<(String, String)> = (0..8)
        .map(|at| {
            (
                format!("m{at}.ts"),
                format!("export function f{at}() {{\n  return {at};\n}}\n"),
            )
        })
        .collect();
    let named: Vec<(&str, &str)> = texts
        .iter()
        .map(|(path, text)| (path.as_str(), text.as_str()))
        .collect();
    let tree = source_tree(&db, &named);
    let here = std::thread::current().id();
    let _ = keel_queries::callgraph::call_graph_on_threads(&db, tree, 2);
    let cold = db.take_executions();
    assert!(
        cold.iter()
            .any(|(thread, query, _)| *thread != here && query == query_name(ts_facts)),
        "the control: a new tree is parsed on helpers: {cold:?}"
    );

    let mut edited = named.clone();
    edited[3].1 = "export function f3() {\n  f4();\n  return 3;\n}\n";
    let hashed = graph_inputs(&hashed_files(&db, &edited));
    set_sources(&mut db, tree, hashed);
    let warm = keel_queries::callgraph::call_graph_on_threads(&db, tree, 2).clone();
    let run = db.take_executions();
    let names: Vec<String> = run.iter().map(|(_, query, _)| query.clone()).collect();
    assert_eq!(count(&names, ts_facts), 1, "{run:?}");
    assert!(run.iter().all(|(thread, _, _)| *thread == here), "{run:?}");
    assert_eq!(warm, graph_of(&edited), "a warm answer equals a cold one");
}
