//! `recall-bench CHECKOUT CALLS [--keel PATH] [--sample N] [--seed N] [--examples N]`:
//! keel's Python call graph against the calls a project's own test suite makes at runtime —
//! recall of the observed caller → callee pairs, and precision on a sample of keel's edges.
//!
//! CALLS is what `benches/recall/record_calls.py` wrote while the project's tests ran in
//! CHECKOUT (a pytest plugin with a `sys.setprofile` hook; `benches/recall/recall.sh` does
//! the whole run): every (caller, callee) pair of one package's callables, already named
//! as keel names nodes (`path#Qualified.name`, `path#<module>`), with the caller's lines,
//! its bytecode instruction at the call, the builtin it was inside (C code calling back)
//! and whether the callee is a generator started by its consumer. The bench runs the release `keel callgraph --format json` in CHECKOUT
//! (`--keel`, default the `keel` beside this binary) and reports:
//!
//! - the observed pairs, less those that are no call at any source site (finalizers
//!   `__del__`, a module's `__getattr__` probed by the import system): listed with their
//!   counts, not in the ratio;
//! - recall: the pairs keel has an edge for (any edge of the JSON, a dispatch edge
//!   included: the count per edge label is printed when the JSON labels edges), and
//!   every missing pair grouped by why keel misses it ([`Reason`]: the caller's
//!   instruction, the callee's name on the caller's line, and keel's own edges and
//!   unresolved sites at that line tell), with the caller's line for reading;
//! - precision on a sample: N of keel's edges between the package's callables, chosen by
//!   a hash of the seed and the edge (so the same edge stays in the sample while keel
//!   changes), each confirmed when the runtime observed it; the others are printed
//!   for hand-checking with whether their caller and callee ran at all.
//!
//! Owns: reading the two JSON documents, the classification and the report. Does not
//! own: the recording (`benches/recall/record_calls.py`), the graph (`keel callgraph`).
//! The numbers belong in benches/README.md and closing notes, never in a test.

use keel_benches::{count_arg, keel_run, release_keel};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str =
    "usage: recall-bench CHECKOUT CALLS [--keel PATH] [--sample N] [--seed N] [--examples N]";

/// The recall the issue asks for (issue #41).
const GOAL: f64 = 0.98;

struct Options {
    checkout: PathBuf,
    calls: PathBuf,
    keel: Option<PathBuf>,
    sample: usize,
    seed: u64,
    /// Missing pairs listed per reason (all when `None`).
    examples: Option<usize>,
}

fn main() -> ExitCode {
    match options().and_then(|options| run(&options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("recall-bench: {message}");
            ExitCode::from(2)
        }
    }
}

fn options() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let mut positional = Vec::new();
    let mut options = Options {
        checkout: PathBuf::new(),
        calls: PathBuf::new(),
        keel: None,
        sample: 40,
        seed: 1,
        examples: None,
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--keel" => options.keel = Some(PathBuf::from(args.next().ok_or(USAGE)?)),
            "--sample" => options.sample = count_arg(args.next(), USAGE)?,
            "--seed" => {
                options.seed = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or(USAGE.to_owned())?;
            }
            "--examples" => options.examples = Some(count_arg(args.next(), USAGE)?),
            "--help" | "-h" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            _ if arg.starts_with("--") => return Err(USAGE.to_owned()),
            _ => positional.push(PathBuf::from(arg)),
        }
    }
    let [checkout, calls] = <[PathBuf; 2]>::try_from(positional).map_err(|_| USAGE.to_owned())?;
    options.checkout = checkout;
    options.calls = calls;
    Ok(options)
}

/// One observed pair, as `record_calls.py` wrote it.
struct Pair {
    caller: String,
    callee: String,
    count: u64,
    lines: Vec<u32>,
    ops: Vec<String>,
    generator: bool,
    /// The builtins the caller was inside when the callee started (C code calling back).
    builtins: Vec<String>,
}

/// What the runtime recorded.
struct Calls {
    package: String,
    python: String,
    seconds: f64,
    session: String,
    left_out: Vec<(String, u64)>,
    ran: BTreeSet<String>,
    /// The callables of `ran` that are generators or coroutines.
    generators: BTreeSet<String>,
    pairs: Vec<Pair>,
}

/// An edge of keel's graph: (caller, callee).
type EdgeKey = (String, String);
/// An edge's sites and label (`direct` unless the JSON says more).
type EdgeInfo = (Vec<u32>, String);

/// keel's graph, indexed for the questions the bench asks.
struct Graph {
    kinds: HashMap<String, String>,
    /// A node's first and last line (the first is its first decorator's, the first
    /// `@overload`'s when several definitions make the node).
    spans: HashMap<String, (u32, u32)>,
    /// (caller, callee) → (sites, the edge's label: `direct` unless the JSON says more).
    edges: BTreeMap<EdgeKey, EdgeInfo>,
    /// caller → its edges' (callee, sites).
    out: HashMap<String, Vec<(String, Vec<u32>)>>,
    /// caller → its unresolved sites' (line, callee as written).
    unresolved: HashMap<String, Vec<(u32, String)>>,
    unresolved_count: usize,
}

fn string(value: &Value, key: &str) -> Result<String, String> {
    value
        .get(key)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| format!("missing string field `{key}` in {value}"))
}

fn lines_of(value: &Value, key: &str) -> Vec<u32> {
    value
        .get(key)
        .and_then(Value::as_array)
        .map(|lines| {
            lines
                .iter()
                .filter_map(Value::as_u64)
                .filter_map(|n| u32::try_from(n).ok())
                .collect()
        })
        .unwrap_or_default()
}

fn strings(value: &Value, key: &str) -> Vec<String> {
    value[key]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

fn read_calls(path: &Path) -> Result<Calls, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    if doc.get("schema").and_then(Value::as_str) != Some("keel.recall.calls.v1") {
        return Err(format!(
            "{} is not a record_calls.py document (schema keel.recall.calls.v1)",
            path.display()
        ));
    }
    let mut pairs = Vec::new();
    for pair in doc["pairs"].as_array().into_iter().flatten() {
        pairs.push(Pair {
            caller: string(pair, "caller")?,
            callee: string(pair, "callee")?,
            count: pair["count"].as_u64().unwrap_or(0),
            lines: lines_of(pair, "lines"),
            ops: strings(pair, "ops"),
            generator: pair["generator"].as_bool().unwrap_or(false),
            builtins: strings(pair, "builtins"),
        });
    }
    let session = &doc["session"];
    let session = match (session["collected"].as_u64(), session["failed"].as_u64()) {
        (Some(collected), Some(failed)) => format!("{collected} tests run, {failed} failed"),
        _ => "the test session did not report (interrupted?)".to_owned(),
    };
    Ok(Calls {
        package: string(&doc, "package")?,
        python: string(&doc, "python")?,
        seconds: doc["seconds"].as_f64().unwrap_or(0.0),
        session,
        left_out: doc["left_out"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(reason, n)| (reason.clone(), n.as_u64().unwrap_or(0)))
            .collect(),
        ran: strings(&doc, "ran").into_iter().collect(),
        generators: strings(&doc, "generators").into_iter().collect(),
        pairs,
    })
}

/// An edge's label: `direct`, or what the JSON's other fields say (`"kind": "dispatch"`
/// gives `dispatch`, `"dispatch": true` gives `dispatch`).
fn edge_label(edge: &Value) -> String {
    let mut parts = Vec::new();
    for (key, value) in edge.as_object().into_iter().flatten() {
        if matches!(key.as_str(), "caller" | "callee" | "sites") {
            continue;
        }
        match value {
            Value::String(text) => parts.push(text.clone()),
            Value::Bool(true) => parts.push(key.clone()),
            Value::Bool(false) | Value::Null => {}
            other => parts.push(format!("{key}={other}")),
        }
    }
    if parts.is_empty() {
        "direct".to_owned()
    } else {
        parts.join(",")
    }
}

fn read_graph(text: &str) -> Result<Graph, String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("keel's JSON: {e}"))?;
    let mut graph = Graph {
        kinds: HashMap::new(),
        spans: HashMap::new(),
        edges: BTreeMap::new(),
        out: HashMap::new(),
        unresolved: HashMap::new(),
        unresolved_count: 0,
    };
    for node in doc["nodes"].as_array().into_iter().flatten() {
        let id = string(node, "id")?;
        let line = |key: &str| {
            node[key]
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(0)
        };
        graph
            .spans
            .insert(id.clone(), (line("start_line"), line("end_line")));
        graph.kinds.insert(id, string(node, "kind")?);
    }
    for edge in doc["edges"].as_array().into_iter().flatten() {
        let (caller, callee) = (string(edge, "caller")?, string(edge, "callee")?);
        let sites = lines_of(edge, "sites");
        graph
            .out
            .entry(caller.clone())
            .or_default()
            .push((callee.clone(), sites.clone()));
        graph
            .edges
            .insert((caller, callee), (sites, edge_label(edge)));
    }
    for site in doc["unresolved"].as_array().into_iter().flatten() {
        graph.unresolved_count += 1;
        let line = site["line"]
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(0);
        graph
            .unresolved
            .entry(string(site, "caller")?)
            .or_default()
            .push((line, string(site, "callee_text")?));
    }
    Ok(graph)
}

/// Why an observed pair is left out, or why keel misses it: the first that applies, in
/// this order ([`classify`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Reason {
    // Left out: no call at any source site.
    Finalizer,
    ImportMachinery,
    // Missing.
    NoNode,
    AttributeHook,
    PropertyRead,
    PropertyWrite,
    Dunder,
    GeneratorConsumer,
    DynamicGetattr,
    CalledBack,
    WrapperSkipped,
    Override,
    Wrapper,
    Unresolved,
    ThroughValue,
    ResolvedElsewhere,
    Silent,
}

impl Reason {
    fn left_out(self) -> bool {
        self <= Self::ImportMachinery
    }

    fn label(self) -> &'static str {
        match self {
            Self::Finalizer => "finalizer `__del__` (run when an object dies)",
            Self::ImportMachinery => {
                "import machinery (module `__getattr__` probed by `import`/`from … import`)"
            }
            Self::NoNode => "caller or callee is not a node of keel's graph",
            Self::AttributeHook => "attribute hook (`__getattr__`, `__setattr__`)",
            Self::PropertyRead => "property or descriptor read (no call syntax)",
            Self::PropertyWrite => "property setter or descriptor write",
            Self::Dunder => "implicit dunder (operator, protocol, conversion, class statement)",
            Self::GeneratorConsumer => {
                "generator or coroutine started by its consumer (created elsewhere)"
            }
            Self::WrapperSkipped => {
                "call of a decorated function reaches its wrapper (keel links the decorated \
                 function itself)"
            }
            Self::Override => "override dispatch (keel reached another method of that name)",
            Self::Unresolved => "keel lists the call site as unresolved",
            Self::Wrapper => {
                "decorator wrapper calling the function it wraps (the callee is decorated by \
                 the caller's enclosing function)"
            }
            Self::DynamicGetattr => "dynamic `getattr`/`hasattr` (the name is a string)",
            Self::CalledBack => {
                "called back by a builtin the caller called (`io` flushing, `sorted`, `str.format`)"
            }
            Self::ThroughValue => {
                "called through a value (a callback argument, an attribute or variable holding \
                 a function or class), or by external code the caller called"
            }
            Self::ResolvedElsewhere => {
                "keel has other edges at the line, not this one (a bound method passed as a \
                 value, aliasing)"
            }
            Self::Silent => {
                "name on the line, keel has no edge and no unresolved site there (taken as external)"
            }
        }
    }
}

/// The last part of a qualified name; for `C.__init__` and `C.__new__` the class's name
/// (what a call site spells).
fn spelled_name(id: &str) -> &str {
    let qualified = id.split_once('#').map_or(id, |(_, q)| q);
    let mut parts = qualified.rsplit('.');
    let last = parts.next().unwrap_or(qualified);
    match last {
        "__init__" | "__new__" => parts.next().unwrap_or(last),
        _ => last,
    }
}

fn last_name(id: &str) -> &str {
    let qualified = id.split_once('#').map_or(id, |(_, q)| q);
    qualified.rsplit('.').next().unwrap_or(qualified)
}

/// Whether `text` holds `name` as a whole identifier.
fn has_word(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// The checkout's files, read once, by line.
struct Sources {
    root: PathBuf,
    files: HashMap<String, Vec<String>>,
}

impl Sources {
    fn line(&mut self, id: &str, line: u32) -> &str {
        let path = id.split_once('#').map_or(id, |(path, _)| path);
        let lines = self.files.entry(path.to_owned()).or_insert_with(|| {
            std::fs::read_to_string(self.root.join(path))
                .map(|text| text.lines().map(str::to_owned).collect())
                .unwrap_or_default()
        });
        line.checked_sub(1)
            .and_then(|i| lines.get(i as usize))
            .map_or("", String::as_str)
    }
}

fn classify(pair: &Pair, graph: &Graph, sources: &mut Sources) -> Reason {
    let last = last_name(&pair.callee);
    let ops: BTreeSet<&str> = pair.ops.iter().map(String::as_str).collect();
    let calls = ops
        .iter()
        .any(|op| op.starts_with("CALL") || *op == "PRECALL");
    if last == "__del__" {
        return Reason::Finalizer;
    }
    if !ops.is_empty() && ops.iter().all(|op| op.starts_with("IMPORT_")) {
        return Reason::ImportMachinery;
    }
    if !graph.kinds.contains_key(&pair.caller) || !graph.kinds.contains_key(&pair.callee) {
        return Reason::NoNode;
    }
    if matches!(
        last,
        "__getattr__" | "__getattribute__" | "__setattr__" | "__delattr__"
    ) {
        return Reason::AttributeHook;
    }
    if !calls && (ops.contains("LOAD_ATTR") || ops.contains("LOAD_METHOD")) {
        return Reason::PropertyRead;
    }
    if !calls && (ops.contains("STORE_ATTR") || ops.contains("DELETE_ATTR")) {
        return Reason::PropertyWrite;
    }
    let dunder = last.len() > 4 && last.starts_with("__") && last.ends_with("__");
    if dunder && !matches!(last, "__init__" | "__new__" | "__call__") {
        return Reason::Dunder;
    }
    let spelled = spelled_name(&pair.callee);
    let texts: Vec<String> = pair
        .lines
        .iter()
        .map(|&line| sources.line(&pair.caller, line).to_owned())
        .collect();
    let named = texts.iter().any(|text| has_word(text, spelled));
    if pair.generator && !named {
        return Reason::GeneratorConsumer;
    }
    // C code between the two frames: the call at the line is the builtin's, not this one.
    let dynamic = |name: &str| matches!(name, "getattr" | "hasattr" | "setattr" | "delattr");
    if pair.builtins.iter().any(|b| dynamic(b))
        || (!named && texts.iter().any(|text| text.contains("getattr(")))
    {
        return Reason::DynamicGetattr;
    }
    if !pair.builtins.is_empty() {
        return Reason::CalledBack;
    }
    let at_lines = |sites: &[u32]| sites.iter().any(|site| pair.lines.contains(site));
    let keel_here: Vec<&String> = graph
        .out
        .get(&pair.caller)
        .into_iter()
        .flatten()
        .filter(|(_, sites)| at_lines(sites))
        .map(|(callee, _)| callee)
        .collect();
    if !named
        && keel_here
            .iter()
            .any(|decorated| decorated_by(graph, sources, decorated, &pair.callee))
    {
        return Reason::WrapperSkipped;
    }
    if keel_here
        .iter()
        .any(|callee| last_name(callee) == last && **callee != pair.callee)
    {
        return Reason::Override;
    }
    if !named && decorated_by(graph, sources, &pair.callee, &pair.caller) {
        return Reason::Wrapper;
    }
    if graph
        .unresolved
        .get(&pair.caller)
        .into_iter()
        .flatten()
        .any(|(line, _)| pair.lines.contains(line))
    {
        return Reason::Unresolved;
    }
    if !named {
        return Reason::ThroughValue;
    }
    if keel_here.is_empty() {
        Reason::Silent
    } else {
        Reason::ResolvedElsewhere
    }
}

/// Whether `wrapper` is a function nested in a function whose name one of
/// `decorated`'s decorators spells: `setupmethod.wrapper_func` and a method under
/// `@setupmethod`, `pass_context.new_func` and a function under `@pass_context`.
fn decorated_by(graph: &Graph, sources: &mut Sources, decorated: &str, wrapper: &str) -> bool {
    let Some((_, qualified)) = wrapper.split_once('#') else {
        return false;
    };
    let names: Vec<&str> = qualified.split('.').collect();
    let Some((_, enclosing)) = names.split_last() else {
        return false;
    };
    if enclosing.is_empty() || graph.kinds.get(wrapper).map(String::as_str) != Some("function") {
        return false;
    }
    let Some(&(start, end)) = graph.spans.get(decorated) else {
        return false;
    };
    // The decorators at the definition's own indentation (every definition of the node:
    // `@overload`s, then the one with the wrapper).
    let first = sources.line(decorated, start);
    let indent = first.len() - first.trim_start().len();
    (start..=end).any(|line| {
        let text = sources.line(decorated, line);
        let trimmed = text.trim_start();
        text.len() - trimmed.len() == indent
            && trimmed.starts_with('@')
            && enclosing.iter().any(|name| has_word(trimmed, name))
    })
}

/// What keel says at the pair's lines: its edges from the caller there, and its
/// unresolved sites there.
fn keel_at(pair: &Pair, graph: &Graph) -> String {
    let mut said = Vec::new();
    for (callee, sites) in graph.out.get(&pair.caller).into_iter().flatten() {
        if sites.iter().any(|site| pair.lines.contains(site)) {
            said.push(format!("-> {callee}"));
        }
    }
    for (line, text) in graph.unresolved.get(&pair.caller).into_iter().flatten() {
        if pair.lines.contains(line) {
            said.push(format!("unresolved `{text}`"));
        }
    }
    if said.is_empty() {
        "keel: nothing at the line".to_owned()
    } else {
        format!("keel: {}", said.join("; "))
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        1.0
    } else {
        part as f64 / whole as f64
    }
}

/// A stable hash of the seed and an edge (FNV-1a, then a splitmix64 finish): the sample is
/// the N edges of least hash, so an edge stays sampled while the graph changes around it.
fn edge_hash(seed: u64, caller: &str, callee: &str) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64 ^ seed;
    for byte in caller.bytes().chain(*b" -> ").chain(callee.bytes()) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    hash = (hash ^ (hash >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    hash = (hash ^ (hash >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    hash ^ (hash >> 31)
}

fn run(options: &Options) -> Result<(), String> {
    let calls = read_calls(&options.calls)?;
    let keel = match &options.keel {
        Some(keel) => keel.clone(),
        None => release_keel()?,
    };
    let keel_answer = keel_run(&keel, &options.checkout, &["callgraph", "--format", "json"])?;
    let graph = read_graph(&keel_answer.stdout)?;
    let package = format!("{}/", calls.package.trim_end_matches('/'));
    let mut sources = Sources {
        root: options.checkout.clone(),
        files: HashMap::new(),
    };

    let mut out = String::new();
    let _ = writeln!(
        out,
        "recall-bench: {} in {}, keel {}",
        calls.package,
        options.checkout.display(),
        keel.display()
    );
    let left_out_at_runtime: Vec<String> = calls
        .left_out
        .iter()
        .map(|(reason, n)| format!("{reason}: {n}"))
        .collect();
    let _ = writeln!(
        out,
        "runtime: Python {}, {}, {:.1} s under the profiler; {} of the package's callables ran; \
         events not recorded as pairs: {}",
        calls.python,
        calls.session,
        calls.seconds,
        calls.ran.len(),
        left_out_at_runtime.join(", ")
    );
    let internal: Vec<(&EdgeKey, &EdgeInfo)> = graph
        .edges
        .iter()
        .filter(|((caller, callee), _)| {
            caller.starts_with(&package) && callee.starts_with(&package)
        })
        .collect();
    let cpu = keel_answer
        .cpu
        .map_or_else(|| "?".to_owned(), |cpu| format!("{:.2}", cpu.as_secs_f64()));
    let _ = writeln!(
        out,
        "keel callgraph: {:.2} s wall, {cpu} s CPU; {} nodes, {} edges ({} between the package's \
         callables), {} unresolved sites",
        keel_answer.time.as_secs_f64(),
        graph.kinds.len(),
        graph.edges.len(),
        internal.len(),
        graph.unresolved_count
    );

    // Recall.
    let mut present: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_reason: BTreeMap<Reason, Vec<&Pair>> = BTreeMap::new();
    let observed: BTreeSet<(&str, &str)> = calls
        .pairs
        .iter()
        .map(|p| (p.caller.as_str(), p.callee.as_str()))
        .collect();
    let mut observed_from: HashMap<&str, Vec<&str>> = HashMap::new();
    for (caller, callee) in &observed {
        observed_from.entry(caller).or_default().push(callee);
    }
    // A keel edge caller -> F that the runtime made as caller -> W -> F, W a wrapper of F.
    let through_wrapper = |sources: &mut Sources, caller: &str, callee: &str| {
        observed_from
            .get(caller)
            .into_iter()
            .flatten()
            .any(|wrapper| {
                observed.contains(&(*wrapper, callee))
                    && decorated_by(&graph, sources, callee, wrapper)
            })
    };
    for pair in &calls.pairs {
        let reason = classify(pair, &graph, &mut sources);
        if reason.left_out() {
            by_reason.entry(reason).or_default().push(pair);
            continue;
        }
        match graph.edges.get(&(pair.caller.clone(), pair.callee.clone())) {
            Some((_, label)) => *present.entry(label.as_str()).or_default() += 1,
            None => by_reason.entry(reason).or_default().push(pair),
        }
    }
    let excluded: Vec<(Reason, usize)> = by_reason
        .iter()
        .filter(|(reason, _)| reason.left_out())
        .map(|(reason, pairs)| (*reason, pairs.len()))
        .collect();
    let excluded_count: usize = excluded.iter().map(|(_, n)| n).sum();
    let counted = calls.pairs.len() - excluded_count;
    let hits: usize = present.values().sum();
    let missing = counted - hits;
    let _ = writeln!(
        out,
        "\nobserved pairs: {} ({} left out as no call at any source site)",
        calls.pairs.len(),
        excluded_count
    );
    for (reason, n) in &excluded {
        let _ = writeln!(out, "  {n:>4}  {}", reason.label());
    }
    let labels: Vec<String> = present
        .iter()
        .map(|(label, n)| format!("{label} {n}"))
        .collect();
    let recall = ratio(hits, counted);
    let _ = writeln!(
        out,
        "recall: {hits} of {counted} observed pairs have an edge = {recall:.3} (edges: {}); \
         goal >= {GOAL}: {}",
        if labels.is_empty() {
            "none".to_owned()
        } else {
            labels.join(", ")
        },
        if recall >= GOAL { "met" } else { "not met" }
    );
    let skipped = by_reason.get(&Reason::WrapperSkipped).map_or(0, Vec::len);
    if skipped > 0 {
        let _ = writeln!(
            out,
            "  counting a call that reaches a decorator's wrapper as present when keel links \
             the function it wraps: {} of {counted} = {:.3}",
            hits + skipped,
            ratio(hits + skipped, counted)
        );
    }
    let _ = writeln!(out, "missing: {missing}, by reason:");
    let mut order: Vec<(&Reason, &Vec<&Pair>)> = by_reason
        .iter()
        .filter(|(reason, _)| !reason.left_out())
        .collect();
    order.sort_by_key(|(reason, pairs)| (std::cmp::Reverse(pairs.len()), **reason));
    for (reason, pairs) in &order {
        let _ = writeln!(out, "  {:>4}  {}", pairs.len(), reason.label());
    }
    for (reason, pairs) in order
        .iter()
        .copied()
        .chain(by_reason.iter().filter(|(reason, _)| reason.left_out()))
    {
        let _ = writeln!(out, "\n## {} ({})", reason.label(), pairs.len());
        let shown = options.examples.unwrap_or(usize::MAX);
        for pair in pairs.iter().take(shown) {
            let line = pair.lines.first().copied().unwrap_or(0);
            let text = sources.line(&pair.caller, line).trim().to_owned();
            let more = if pair.lines.len() > 1 {
                format!(" (+{} lines)", pair.lines.len() - 1)
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "  {} -> {}  x{} [{}]{}{}\n      {line}: {text}{more}\n      {}",
                pair.caller,
                pair.callee,
                pair.count,
                pair.ops.join(","),
                if pair.generator { " generator" } else { "" },
                if pair.builtins.is_empty() {
                    String::new()
                } else {
                    format!(" in builtin {}", pair.builtins.join(","))
                },
                keel_at(pair, &graph),
            );
        }
        if pairs.len() > shown {
            let _ = writeln!(out, "  … {} more", pairs.len() - shown);
        }
    }

    // Precision on a sample.
    let mut sample: Vec<(u64, &EdgeKey, &EdgeInfo)> = internal
        .iter()
        .map(|(edge, info)| (edge_hash(options.seed, &edge.0, &edge.1), *edge, *info))
        .collect();
    sample.sort();
    sample.truncate(options.sample);
    sample.sort_by(|a, b| a.1.cmp(b.1));
    let mut confirmed = 0;
    let mut caller_ran = 0;
    let mut rows: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (_, (caller, callee), (sites, label)) in &sample {
        let verdict = if observed.contains(&(caller.as_str(), callee.as_str())) {
            confirmed += 1;
            caller_ran += 1;
            "confirmed at runtime"
        } else if through_wrapper(&mut sources, caller, callee) {
            confirmed += 1;
            caller_ran += 1;
            "confirmed at runtime through the callee's decorator wrapper"
        } else if !calls.ran.contains(caller) {
            "caller never ran in the tests"
        } else if !calls.ran.contains(callee) {
            caller_ran += 1;
            "caller ran, callee never ran: check by hand"
        } else if calls.generators.contains(callee) {
            caller_ran += 1;
            "both ran, the callee is a generator (its creation runs no code): check by hand"
        } else {
            caller_ran += 1;
            "both ran, this pair never: check by hand"
        };
        let line = sites.first().copied().unwrap_or(0);
        let text = sources.line(caller, line).trim().to_owned();
        rows.entry(verdict).or_default().push(format!(
            "  {caller} -> {callee} ({label})\n      {line}: {text}"
        ));
    }
    let _ = writeln!(
        out,
        "\nprecision sample: {} of keel's {} edges between the package's callables (seed {}): \
         confirmed at runtime {confirmed} = {:.3}; among the {caller_ran} whose caller ran: {:.3}",
        sample.len(),
        internal.len(),
        options.seed,
        ratio(confirmed, sample.len()),
        ratio(confirmed, caller_ran),
    );
    for (verdict, rows) in &rows {
        let _ = writeln!(out, "# {verdict} ({})", rows.len());
        for row in rows {
            let _ = writeln!(out, "{row}");
        }
    }
    print!("{out}");
    Ok(())
}
