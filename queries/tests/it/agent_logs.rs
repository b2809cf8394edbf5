//! Agent logs read incrementally: an appended line is the one line parsed, and only the
//! session it belongs to is totalled and priced again; the warm answer equals a cold one.

use crate::support::count;
use keel_engine::agents::{AgentLogs, LogEnv, LogSources, LogSync};
use keel_engine::{ChangeEvent, KeelDatabase};
use keel_fixtures::sessions::write_file;
use keel_queries::agents::{agent_session, agent_sessions, log_claims};
use std::path::Path;

fn record(session: &str, uuid: &str, minute: u32, message: &str, output: u32) -> String {
    format!(
        "{{\"type\":\"assistant\",\"sessionId\":\"{session}\",\"uuid\":\"{uuid}\",\"timestamp\":\"2026-01-15T10:{minute:02}:00Z\",\"cwd\":\"/w\",\"requestId\":\"r-{message}\",\"message\":{{\"id\":\"{message}\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"usage\":{{\"input_tokens\":10,\"output_tokens\":{output}}}}}}}\n"
    )
}

fn sources(dir: &Path) -> LogSources {
    LogSources {
        claude_dirs: vec![dir.to_owned()],
        codex_dirs: Vec::new(),
        gemini_dirs: Vec::new(),
        opencode_dirs: Vec::new(),
        env: LogEnv::default(),
        cache: None,
    }
}

/// Reads the logs under `dir` into `db` through the one door: the logs input and what
/// the read saw.
fn read_logs(db: &mut KeelDatabase, dir: &Path) -> (AgentLogs, LogSync) {
    let read = db
        .apply_changes(&[ChangeEvent::AgentLogsFrom(Box::new(sources(dir)))])
        .expect("the folder exists");
    let logs = db.agent_logs().expect("a read made the logs input");
    (logs, read.agent_logs.expect("the logs were read"))
}

#[test]
fn an_appended_line_is_parsed_alone_and_reprices_only_its_session() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    let a_text = record("a", "u1", 1, "m1", 5) + &record("a", "u2", 2, "m2", 5);
    write_file(&a, &a_text).expect("write a");
    write_file(&b, &record("b", "u3", 3, "m3", 5)).expect("write b");
    let mut db = KeelDatabase::detached();
    let (logs, cold_read) = read_logs(&mut db, dir.path());
    assert_eq!(cold_read.lines_parsed, 3);
    let before = agent_sessions(&db, logs).clone();
    let cold = db.take_executed_queries();
    assert_eq!(count(&cold, agent_session), 2, "{cold:?}");
    assert_eq!(before.sessions.len(), 2);

    write_file(&a, &(a_text + &record("a", "u4", 4, "m4", 7))).expect("append to a");
    let (same, warm_read) = read_logs(&mut db, dir.path());
    assert_eq!(same, logs);
    assert_eq!((warm_read.files_read, warm_read.lines_parsed), (1, 1));
    let warm = agent_sessions(&db, logs).clone();
    let executed = db.take_executed_queries();
    assert_eq!(count(&executed, log_claims), 1, "{executed:?}");
    assert_eq!(count(&executed, agent_session), 1, "only a's: {executed:?}");
    let a_warm = &warm.sessions[0];
    assert_eq!(
        (
            a_warm.session_id.as_ref(),
            a_warm.api_calls,
            a_warm.tokens.output
        ),
        ("a", 3, 17)
    );
    assert_eq!(warm.sessions[1], before.sessions[1]);

    let mut fresh = KeelDatabase::detached();
    let (cold_logs, _) = read_logs(&mut fresh, dir.path());
    assert_eq!(agent_sessions(&fresh, cold_logs), &warm);
}

#[test]
fn a_read_or_prices_that_changed_nothing_set_nothing_and_new_prices_reprice_every_session() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    write_file(
        &dir.path().join("a.jsonl"),
        &(record("a", "u1", 1, "m1", 5) + &record("b", "u2", 2, "m2", 5)),
    )
    .expect("write a");
    let mut db = KeelDatabase::detached();
    read_logs(&mut db, dir.path());
    let logs = db.agent_logs().expect("the logs input");
    let bundled = agent_sessions(&db, logs).clone();
    let cold = db.take_executed_queries();
    assert_eq!(count(&cold, agent_session), 2, "{cold:?}");

    let again = db
        .apply_changes(&[
            ChangeEvent::AgentLogsFrom(Box::new(sources(dir.path()))),
            ChangeEvent::PricesChanged(Default::default()),
        ])
        .expect("the folder exists");
    assert!(!again.prices_changed, "the same (empty) [prices]");
    let read = again.agent_logs.expect("the logs were read");
    assert_eq!((read.files_read, read.lines_parsed), (0, 0));
    assert_eq!(agent_sessions(&db, logs), &bundled);
    let unchanged = db.take_executed_queries();
    assert_eq!(count(&unchanged, agent_session), 0, "{unchanged:?}");

    let settings = keel_engine::settings::Settings::from_bytes(
        b"[prices]\n\"claude-sonnet-4-5\" = { input = 1000000.0, output = 0.0 }\n",
    )
    .expect("valid prices");
    let priced = db
        .apply_changes(&[ChangeEvent::PricesChanged(settings.prices)])
        .expect("setting prices reads nothing");
    assert!(priced.prices_changed);
    let repriced = agent_sessions(&db, logs).clone();
    let executed = db.take_executed_queries();
    assert_eq!(count(&executed, agent_session), 2, "{executed:?}");
    assert_eq!(count(&executed, log_claims), 0, "no line is read again");
    // 10 input tokens at $1,000,000 per million: $10 each, whatever the bundled table says.
    for session in &repriced.sessions {
        assert_eq!(
            session.cost.as_ref().map(|cost| cost.as_str().to_owned()),
            Some("10".to_owned()),
            "{session:?}"
        );
    }
}

/// Resumed Claude sessions as a property: a seeded generator writes original sessions
/// and sessions resuming them in every resume shape, then lays the same files out under
/// random names and folders; every layout must give the same sessions, and those must be
/// the generator's own truth (each call and tool is its creator's, whatever file sorts
/// first). Replayed copies never tie a session's first record with another's (a resume
/// happens after the session it resumes began), so path order, which breaks exact ties
/// only, never decides here.
mod resumes {
    use super::{read_logs, write_file};
    use keel_engine::KeelDatabase;
    use keel_engine::agents::Tokens;
    use keel_engine::sessions::Instant;
    use keel_fixtures::rng::SeededRng;
    use keel_queries::agents::agent_sessions;
    use std::collections::BTreeMap;

    const SEED: u64 = 0x7265_7375_6d65_7321;
    const SCENARIOS: usize = 40;
    const LAYOUTS: usize = 3;

    /// How a resumed session replays the one it resumes (`notes/agent-logs.md`).
    #[derive(Debug, Clone, Copy)]
    enum Shape {
        /// Copies keep the old session id (and uuid and time).
        KeepsId,
        /// Copies get the new session id, keep their uuids, get new times.
        NewIdSameUuids,
        /// Copies get the new session id and fresh uuids, new times.
        NewIdFreshUuids,
        /// Copies of all but the first record: new session id, fresh uuids, old times.
        PartialKeptTimes,
    }

    /// One record line and what it is.
    #[derive(Debug, Clone)]
    struct Record {
        session: String,
        uuid: String,
        at: u32,
        /// (message id, request id or none, output tokens, tool id) of an assistant line.
        call: Option<(String, Option<String>, u64, Option<String>)>,
        synthetic: bool,
    }

    impl Record {
        fn json(&self) -> String {
            let time = stamp(self.at);
            let head = format!(
                "\"sessionId\":\"{}\",\"uuid\":\"{}\",\"timestamp\":\"{time}\",\"cwd\":\"/w/app\"",
                self.session, self.uuid
            );
            let Some((message, request, output, tool)) = &self.call else {
                return format!(
                    "{{\"type\":\"user\",{head},\"message\":{{\"role\":\"user\",\"content\":\"go\"}}}}"
                );
            };
            let model = if self.synthetic {
                "<synthetic>"
            } else {
                "claude-sonnet-4-5"
            };
            let request = request
                .as_ref()
                .map(|id| format!(",\"requestId\":\"{id}\""))
                .unwrap_or_default();
            let content = match tool {
                Some(id) => format!(
                    "{{\"type\":\"tool_use\",\"id\":\"{id}\",\"name\":\"Edit\",\"input\":{{}}}}"
                ),
                None => "{\"type\":\"text\",\"text\":\"ok\"}".to_owned(),
            };
            format!(
                "{{\"type\":\"assistant\",{head}{request},\"message\":{{\"id\":\"{message}\",\"model\":\"{model}\",\"role\":\"assistant\",\"content\":[{content}],\"usage\":{{\"input_tokens\":10,\"output_tokens\":{output},\"cache_read_input_tokens\":100}}}}}}"
            )
        }
    }

    /// `2026-03-01` plus `seconds`, as RFC 3339.
    fn stamp(seconds: u32) -> String {
        format!(
            "2026-03-01T{:02}:{:02}:{:02}Z",
            seconds / 3600,
            seconds / 60 % 60,
            seconds % 60
        )
    }

    /// What one session must come out as.
    #[derive(Debug, Default, Clone, PartialEq, Eq)]
    struct Truth {
        calls: u64,
        tokens: Tokens,
        tools: u64,
        start: Option<u32>,
        end: Option<u32>,
    }

    impl Truth {
        fn touch(&mut self, at: u32) {
            self.start = Some(self.start.map_or(at, |start| start.min(at)));
            self.end = Some(self.end.map_or(at, |end| end.max(at)));
        }
    }

    struct Scenario {
        files: Vec<Vec<Record>>,
        truth: BTreeMap<String, Truth>,
        shapes: Vec<Shape>,
    }

    struct Generator {
        rng: SeededRng,
        clock: u32,
        next_id: usize,
    }

    impl Generator {
        fn tick(&mut self) -> u32 {
            self.clock += 1 + self.rng.below(50) as u32;
            self.clock
        }

        fn id(&mut self, prefix: &str) -> String {
            self.next_id += 1;
            format!("{prefix}{}", self.next_id)
        }

        /// A session's own records (a prompt, then calls), counted into its truth.
        fn own_records(&mut self, session: &str, truth: &mut Truth) -> Vec<Record> {
            let at = self.tick();
            truth.touch(at);
            let mut records = vec![Record {
                session: session.to_owned(),
                uuid: self.id("u"),
                at,
                call: None,
                synthetic: false,
            }];
            for _ in 0..1 + self.rng.below(3) {
                let message = self.id("msg_");
                // Gateways and some Claude Code builds write no request id.
                let request = (self.rng.below(3) > 0).then(|| self.id("req_"));
                let tool = (self.rng.below(2) == 0).then(|| self.id("t"));
                let output = 10 + self.rng.below(90) as u64;
                // Streaming writes a placeholder copy (output 1) first, now and then.
                if self.rng.below(2) == 0 {
                    let at = self.tick();
                    truth.touch(at);
                    records.push(Record {
                        session: session.to_owned(),
                        uuid: self.id("u"),
                        at,
                        call: Some((message.clone(), request.clone(), 1, None)),
                        synthetic: false,
                    });
                }
                let at = self.tick();
                truth.touch(at);
                records.push(Record {
                    session: session.to_owned(),
                    uuid: self.id("u"),
                    at,
                    call: Some((message, request, output, tool.clone())),
                    synthetic: false,
                });
                truth.calls += 1;
                truth.tokens.add(&Tokens {
                    input: 10,
                    output,
                    cache_read: 100,
                    ..Tokens::default()
                });
                truth.tools += u64::from(tool.is_some());
            }
            if self.rng.below(4) == 0 {
                let at = self.tick();
                truth.touch(at);
                let message = self.id("msg_");
                records.push(Record {
                    session: session.to_owned(),
                    uuid: self.id("u"),
                    at,
                    call: Some((message, None, 0, None)),
                    synthetic: true,
                });
            }
            records
        }

        fn scenario(&mut self) -> Scenario {
            let mut files: Vec<Vec<Record>> = Vec::new();
            let mut originals: Vec<usize> = Vec::new();
            let mut truth: BTreeMap<String, Truth> = BTreeMap::new();
            let mut shapes = Vec::new();
            for step in 0..2 + self.rng.below(4) {
                if step == 0 || self.rng.below(2) == 0 {
                    let session = self.id("o");
                    let mut facts = Truth::default();
                    files.push(self.own_records(&session, &mut facts));
                    truth.insert(session, facts);
                    originals.push(files.len() - 1);
                    continue;
                }
                let resumed = files[originals[self.rng.below(originals.len())]].clone();
                let shape = [
                    Shape::KeepsId,
                    Shape::NewIdSameUuids,
                    Shape::NewIdFreshUuids,
                    Shape::PartialKeptTimes,
                ][self.rng.below(4)];
                shapes.push(shape);
                let session = self.id("r");
                let mut facts = Truth::default();
                let mut records = Vec::new();
                let skip = usize::from(matches!(shape, Shape::PartialKeptTimes));
                for copy in resumed.into_iter().skip(skip) {
                    let record = match shape {
                        Shape::KeepsId => copy,
                        Shape::NewIdSameUuids => Record {
                            session: session.clone(),
                            at: self.tick(),
                            ..copy
                        },
                        Shape::NewIdFreshUuids => {
                            let at = self.tick();
                            facts.touch(at);
                            Record {
                                session: session.clone(),
                                uuid: self.id("u"),
                                at,
                                ..copy
                            }
                        }
                        Shape::PartialKeptTimes => {
                            facts.touch(copy.at);
                            Record {
                                session: session.clone(),
                                uuid: self.id("u"),
                                ..copy
                            }
                        }
                    };
                    records.push(record);
                }
                records.extend(self.own_records(&session, &mut facts));
                truth.insert(session, facts);
                files.push(records);
            }
            Scenario {
                files,
                truth,
                shapes,
            }
        }

        /// A random path for each file: distinct names, in one of two project folders.
        fn layout(&mut self, files: usize) -> Vec<String> {
            let mut paths: Vec<String> = Vec::new();
            while paths.len() < files {
                let folder = ["-w-a", "-w-b"][self.rng.below(2)];
                let name = format!("{folder}/{:08x}.jsonl", self.rng.next_u64() as u32);
                if !paths.iter().any(|path| path.ends_with(&name[5..])) {
                    paths.push(name);
                }
            }
            paths
        }
    }

    /// keel's sessions for one layout: id → (calls, tokens, tool calls, start, end).
    fn keel_sessions(scenario: &Scenario, paths: &[String]) -> BTreeMap<String, Truth> {
        let dir = tempfile::tempdir().expect("a temporary folder");
        for (records, path) in scenario.files.iter().zip(paths) {
            let text: String = records.iter().map(|r| r.json() + "\n").collect();
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().expect("a file has a folder")).expect("mkdir");
            write_file(&path, &text).expect("write a log");
        }
        let mut db = KeelDatabase::detached();
        let (logs, read) = read_logs(&mut db, dir.path());
        assert!(read.warnings.is_empty(), "{:?}", read.warnings);
        let seconds = |at: Instant| {
            let base = Instant::parse_rfc3339("2026-03-01T00:00:00Z").expect("a valid time");
            u32::try_from((at.nanos() - base.nanos()) / 1_000_000_000).expect("within a day")
        };
        agent_sessions(&db, logs)
            .sessions
            .iter()
            .map(|session| {
                let truth = Truth {
                    calls: session.api_calls,
                    tokens: session.tokens,
                    tools: session.tools.values().sum(),
                    start: Some(seconds(session.start)),
                    end: Some(seconds(session.end)),
                };
                (session.session_id.to_string(), truth)
            })
            .collect()
    }

    #[test]
    fn a_call_belongs_to_the_session_that_started_first_whatever_the_file_names() {
        let mut generator = Generator {
            rng: SeededRng::new(SEED),
            clock: 0,
            next_id: 0,
        };
        let mut shapes_seen = [0usize; 4];
        for case in 0..SCENARIOS {
            generator.clock = 0;
            let scenario = generator.scenario();
            for shape in &scenario.shapes {
                shapes_seen[*shape as usize] += 1;
            }
            let mut answers = Vec::new();
            for _ in 0..LAYOUTS {
                let paths = generator.layout(scenario.files.len());
                let got = keel_sessions(&scenario, &paths);
                assert_eq!(
                    got, scenario.truth,
                    "case {case}, layout {paths:?}, shapes {:?}",
                    scenario.shapes
                );
                answers.push(got);
            }
            assert!(answers.windows(2).all(|pair| pair[0] == pair[1]));
        }
        // Positive control: the generator made every shape, so no shape went untested.
        assert!(shapes_seen.iter().all(|&n| n > 0), "{shapes_seen:?}");
    }
}
