//! `keel lsp`: a language server over the one database `keel watch` uses. Open buffers are
//! the working tree as the editor holds it (unsaved text included: `ChangeEvent::Buffer`
//! over the files on disk); after each batch of opens, changes, saves and closes — and
//! each batch of outside changes `keel watch` would notice (a commit, a checkout, a file
//! another program saved) — the working tree's commit is rebuilt and linted once (after
//! keystrokes alone the files on disk are not walked again: `ChangeEvent::WorktreeBuffers`),
//! and the diagnostics of every file whose list changed are published; the files that had
//! some and now have none are cleared.
//!
//! Owns: the protocol (LSP 3.17 over stdio through `lsp-server`: initialize, the text
//! document notifications with full-text sync, definition, hover, completion, document
//! symbols and code lenses (answered by `navigation`), the call hierarchy (by `calls`,
//! from the call graph of the working tree's files), the `keel.impact` command (by
//! `impact`), `$/cancelRequest`, shutdown and exit; any other request gets a
//! method-not-found error, bad parameters an invalid-params error, and the server keeps
//! serving), the source trees the graphs are memoized on, the mapping between URIs and
//! repository paths, and which diagnostics are sent. Does not own: the findings
//! (`keel_queries::lint`) or their wording per file (`diagnostics`). Never writes to the
//! repository (no memo, no kept answer).

mod calls;
mod diagnostics;
mod impact;
mod navigation;

use keel_engine::inputs::Sources;
use keel_engine::inputs::Tip;
use keel_engine::{ChangeEvent, KeelDatabase, WORKTREE};
use keel_queries::callgraph::{call_graph, graph_inputs};
use keel_queries::lint::{LintError, LintReport, Scope, lint_scope, spec_nodes, tip_file_bound};
use keel_queries::units::tree_files;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    Notification as _, PublishDiagnostics,
};
use lsp_types::{
    CodeLensOptions, CompletionOptions, Diagnostic, HoverProviderCapability, InitializeResult,
    OneOf, PublishDiagnosticsParams, SaveOptions, ServerCapabilities, ServerInfo,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, Uri,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why the server stopped serving.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ServerError {
    #[error("the editor's connection failed: {0}")]
    Protocol(#[from] lsp_server::ProtocolError),
    #[error("the editor's connection closed: {0}")]
    Closed(String),
    #[error("the connection's reader or writer failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("a bare repository has no working tree to edit; repair: run keel lsp in a work tree")]
    NoWorkTree,
    #[error("{0}")]
    Open(#[from] keel_engine::EngineError),
}

/// Watches the repository's refs and working tree on a thread: each batch of outside
/// changes (a commit, a checkout, a file another program saved) is one message.
fn watch_outside(
    db: &KeelDatabase,
) -> Result<
    (
        crossbeam_channel::Receiver<()>,
        keel_engine::watch::StopHandle,
    ),
    ServerError,
> {
    let mut watcher = db.watcher(true)?;
    let stop = watcher.stop_handle();
    let (sender, moves) = crossbeam_channel::unbounded();
    std::thread::spawn(move || {
        while watcher.next_batch().is_some() {
            if sender.send(()).is_err() {
                return;
            }
        }
    });
    Ok((moves, stop))
}

/// The editor's messages, moved as soon as they are read into a queue the server drains
/// whole.
fn queued(messages: &crossbeam_channel::Receiver<Message>) -> crossbeam_channel::Receiver<Message> {
    let (sender, queue) = crossbeam_channel::unbounded();
    let messages = messages.clone();
    std::thread::spawn(move || {
        for message in messages {
            if sender.send(message).is_err() {
                return;
            }
        }
    });
    queue
}

/// The folder the editor opened: `rootUri`, else the first workspace folder, else the
/// current folder.
fn editor_root(params: &serde_json::Value) -> PathBuf {
    let uri = params["rootUri"]
        .as_str()
        .or_else(|| params["workspaceFolders"][0]["uri"].as_str());
    uri.and_then(|uri| uri.strip_prefix("file://"))
        .and_then(percent_decoded)
        .map_or_else(|| PathBuf::from("."), PathBuf::from)
}

/// Serves the editor on stdin/stdout until it says `exit`, in the repository at `repo`
/// (`None`: the editor's root — `rootUri`, or the first workspace folder — else the
/// current folder).
pub(crate) fn serve(repo: Option<PathBuf>) -> Result<(), ServerError> {
    let (connection, io_threads) = Connection::stdio();
    let served = connection
        .initialize_start()
        .map_err(ServerError::from)
        .and_then(|(id, params)| {
            let folder = repo.unwrap_or_else(|| editor_root(&params));
            let opened = KeelDatabase::open(&folder)
                .map_err(ServerError::from)
                .and_then(|db| {
                    let root = db
                        .work_dir()
                        .map(Path::to_owned)
                        .ok_or(ServerError::NoWorkTree)?;
                    Ok((db, root))
                });
            let (db, root) = match opened {
                Ok(opened) => opened,
                Err(err) => {
                    let refusal =
                        Response::new_err(id, ErrorCode::RequestFailed as i32, err.to_string());
                    let _ = connection.sender.send(Message::Response(refusal));
                    return Err(err);
                }
            };
            // The result is plain data: serializing it cannot fail.
            let result = serde_json::to_value(InitializeResult {
                capabilities: capabilities(),
                server_info: Some(ServerInfo {
                    name: "keel".to_owned(),
                    version: Some(env!("CARGO_PKG_VERSION").to_owned()),
                }),
            })
            .unwrap_or_default();
            connection.initialize_finish(id, result)?;
            let (moves, stop) = watch_outside(&db)?;
            let mut server = Server {
                db,
                root,
                connection: &connection,
                incoming: queued(&connection.receiver),
                published: BTreeMap::new(),
                report: None,
                worktree: None,
                trees: Trees::default(),
            };
            server.publish(Moved::Disk);
            let served = server.run(&moves);
            stop.stop();
            served
        });
    drop(connection);
    let joined = io_threads.join();
    served?;
    Ok(joined?)
}

/// Full-text sync of open documents, with the saved text.
fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        definition_provider: Some(OneOf::Left(true)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        call_hierarchy_provider: Some(lsp_types::CallHierarchyServerCapability::Simple(true)),
        execute_command_provider: Some(lsp_types::ExecuteCommandOptions {
            commands: vec![impact::COMMAND.to_owned()],
            ..lsp_types::ExecuteCommandOptions::default()
        }),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["#".to_owned(), ",".to_owned(), "/".to_owned()]),
            ..CompletionOptions::default()
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(true),
                })),
                ..TextDocumentSyncOptions::default()
            },
        )),
        ..ServerCapabilities::default()
    }
}

struct Server<'a> {
    db: KeelDatabase,
    /// The working tree's top folder.
    root: PathBuf,
    connection: &'a Connection,
    /// Every message the editor sent and the server has not taken yet (the connection's
    /// own channel hands over one message at a time, so a burst would not be seen whole).
    incoming: crossbeam_channel::Receiver<Message>,
    /// The diagnostics last published, by repository path (to send only what changed and
    /// clear what is gone).
    published: BTreeMap<String, Vec<Diagnostic>>,
    /// The last report of the working tree as the buffers hold it.
    report: Option<LintReport>,
    /// The working tree's commit as last built (`None` while it equals HEAD, which is
    /// then the tip).
    worktree: Option<keel_engine::Oid>,
    /// The source trees call graphs are read from (made at the first question).
    trees: Trees,
}

/// The source trees the server's call graphs are memoized on: each is made once and then
/// given new files (`ChangeEvent::SourcesChanged`), so only files that changed are read
/// again.
#[derive(Default)]
struct Trees {
    /// The working tree as the buffers hold it (the call hierarchy, an impact's
    /// candidate).
    worktree: Option<Sources>,
    /// HEAD (an impact's base).
    head: Option<Sources>,
}

impl Trees {
    /// The tree in `slot` holding `files` (past `max_file_bytes` not parsed).
    fn holding(
        db: &mut KeelDatabase,
        slot: &mut Option<Sources>,
        files: Vec<(String, keel_engine::Oid)>,
        max_file_bytes: u64,
    ) -> Result<Sources, String> {
        if let Some(tree) = *slot {
            db.apply_changes(&[ChangeEvent::SourcesChanged { tree, files }])
                .map_err(|err| err.to_string())?;
            return Ok(tree);
        }
        let tree = db.sources(files, max_file_bytes);
        *slot = Some(tree);
        Ok(tree)
    }
}

impl Server<'_> {
    /// Serves until `shutdown`: each wake takes every message already waiting, applies
    /// the buffer changes among them in order, lints once if anything moved (so a burst of
    /// keystrokes costs one verdict, and work for a stale version is never done), takes
    /// what came during the lint the same way, then answers the requests in order —
    /// except those the editor cancelled (`$/cancelRequest`), which get a
    /// request-cancelled error. A batch of outside changes (a commit, a checkout, a file
    /// saved by another program) is a wake too.
    fn run(&mut self, moves: &crossbeam_channel::Receiver<()>) -> Result<(), ServerError> {
        let mut backlog: Vec<Message> = Vec::new();
        loop {
            let mut moved = Moved::Nothing;
            if backlog.is_empty() {
                crossbeam_channel::select! {
                    recv(self.incoming) -> message => match message {
                        Ok(message) => backlog.push(message),
                        Err(_) => return Ok(()),
                    },
                    recv(moves) -> outside => if outside.is_ok() { moved = Moved::Disk },
                }
            }
            let mut batch = Batch::default();
            loop {
                backlog.extend(self.incoming.try_iter());
                for message in backlog.drain(..) {
                    moved = moved.max(self.take(message, &mut batch));
                }
                if moved == Moved::Nothing {
                    break;
                }
                self.publish(moved);
                moved = Moved::Nothing;
            }
            for request in batch.requests {
                // A cancel sent while earlier answers were made counts; anything else
                // that came meanwhile waits for the next turn.
                for message in self.incoming.try_iter() {
                    match cancelled_id(&message) {
                        Some(id) => _ = batch.cancelled.insert(id),
                        None => backlog.push(message),
                    }
                }
                if batch.cancelled.contains(&request.id) {
                    self.send(Message::Response(Response::new_err(
                        request.id,
                        ErrorCode::RequestCanceled as i32,
                        "cancelled by the editor".to_owned(),
                    )))?;
                    continue;
                }
                if request.method
                    == <lsp_types::request::Shutdown as lsp_types::request::Request>::METHOD
                {
                    return self.shut_down(request.id);
                }
                self.answer(request)?;
            }
        }
    }

    /// `shutdown`: answered, then every request refused until `exit` (or the editor's
    /// connection closes).
    fn shut_down(&self, id: lsp_server::RequestId) -> Result<(), ServerError> {
        self.send(Message::Response(Response::new_ok(id, ())))?;
        for message in &self.incoming {
            match message {
                Message::Notification(notification)
                    if notification.method == lsp_types::notification::Exit::METHOD =>
                {
                    return Ok(());
                }
                Message::Request(request) => {
                    self.send(Message::Response(Response::new_err(
                        request.id,
                        ErrorCode::InvalidRequest as i32,
                        "keel lsp is shutting down".to_owned(),
                    )))?;
                }
                Message::Notification(_) | Message::Response(_) => {}
            }
        }
        Ok(())
    }

    /// One message of a batch: a request is kept for answering, a cancel noted, a
    /// document notification applied. What it moved.
    fn take(&mut self, message: Message, batch: &mut Batch) -> Moved {
        if let Some(id) = cancelled_id(&message) {
            batch.cancelled.insert(id);
            return Moved::Nothing;
        }
        match message {
            Message::Request(request) => {
                batch.requests.push(request);
                Moved::Nothing
            }
            Message::Notification(notification) => self.notified(notification),
            Message::Response(_) => Moved::Nothing,
        }
    }

    /// Answers a request about a position or a document; any other request is refused.
    fn answer(&mut self, request: Request) -> Result<(), ServerError> {
        use lsp_types::request::{
            CallHierarchyIncomingCalls, CallHierarchyOutgoingCalls, CallHierarchyPrepare,
            CodeLensRequest, Completion, DocumentSymbolRequest, ExecuteCommand, GotoDefinition,
            HoverRequest, Request as _,
        };
        let id = request.id.clone();
        let root = self.root.clone();
        let result = match request.method.as_str() {
            CallHierarchyPrepare::METHOD => self.on_calls(&request, |calls, params| {
                let params: lsp_types::TextDocumentPositionParams =
                    serde_json::from_value(params).ok()?;
                let path = repo_path(&root, &params.text_document.uri)?;
                let item = calls.prepare(&path, params.position.line + 1)?;
                serde_json::to_value(vec![item]).ok()
            }),
            CallHierarchyIncomingCalls::METHOD => self.on_calls(&request, |calls, params| {
                let params: lsp_types::CallHierarchyIncomingCallsParams =
                    serde_json::from_value(params).ok()?;
                serde_json::to_value(calls.incoming(&params.item)).ok()
            }),
            CallHierarchyOutgoingCalls::METHOD => self.on_calls(&request, |calls, params| {
                let params: lsp_types::CallHierarchyOutgoingCallsParams =
                    serde_json::from_value(params).ok()?;
                serde_json::to_value(calls.outgoing(&params.item)).ok()
            }),
            GotoDefinition::METHOD => self.on_position(&request, |view, path, position| {
                view.definition(path, position).and_then(|to| {
                    let uri = file_uri(&self.root.join(&to.path))?;
                    Some(serde_json::json!({"uri": uri, "range": to.range}))
                })
            }),
            HoverRequest::METHOD => self.on_position(&request, |view, path, position| {
                view.hover(path, position)
                    .and_then(|hover| serde_json::to_value(hover).ok())
            }),
            Completion::METHOD => self.on_position(&request, |view, path, position| {
                serde_json::to_value(view.completion(path, position)).ok()
            }),
            DocumentSymbolRequest::METHOD => self.on_document(&request, |view, path| {
                serde_json::to_value(view.symbols(path)).ok()
            }),
            CodeLensRequest::METHOD => self.on_document(&request, |view, path| {
                serde_json::to_value(view.code_lenses(path)).ok()
            }),
            ExecuteCommand::METHOD => return self.on_command(&request),
            _ => return self.refuse(&request),
        };
        match result {
            Ok(value) => self.send(Message::Response(Response::new_ok(
                id,
                value.unwrap_or(serde_json::Value::Null),
            ))),
            Err(message) => self.send(Message::Response(Response::new_err(
                id,
                ErrorCode::InvalidParams as i32,
                message,
            ))),
        }
    }

    /// Runs `answer` on the call graph of the working tree as the editor holds it (the
    /// source tree set to the tip's files first: only files that changed are read again).
    fn on_calls(
        &mut self,
        request: &Request,
        answer: impl Fn(&calls::Calls<'_>, serde_json::Value) -> Option<serde_json::Value>,
    ) -> Result<Option<serde_json::Value>, String> {
        let Some(tip) = Tip::get(&self.db).commit(&self.db) else {
            return Ok(None);
        };
        let files = tree_files(&self.db, tip).map_err(|err| err.to_string())?;
        let bound = tip_file_bound(&self.db, tip).0;
        let tree = Trees::holding(
            &mut self.db,
            &mut self.trees.worktree,
            graph_inputs(&files),
            bound,
        )?;
        let graph = call_graph(&self.db, tree);
        let uri = |path: &str| file_uri(&self.root.join(path));
        let calls = calls::Calls { graph, uri: &uri };
        Ok(answer(&calls, request.params.clone()))
    }

    /// `workspace/executeCommand`: `keel.impact` answers with the report of the working
    /// tree as the buffers hold it against HEAD; another command, or a bad argument, is an
    /// invalid-params error; a report keel refuses (a refused `keel.toml`, a source it
    /// cannot read) a request-failed error naming why.
    fn on_command(&mut self, request: &Request) -> Result<(), ServerError> {
        let id = request.id.clone();
        let answer =
            match serde_json::from_value::<lsp_types::ExecuteCommandParams>(request.params.clone())
            {
                Err(err) => Err((ErrorCode::InvalidParams, err.to_string())),
                Ok(params) if params.command != impact::COMMAND => Err((
                    ErrorCode::InvalidParams,
                    format!(
                        "keel lsp has no command `{}`; repair: run `{}`",
                        params.command,
                        impact::COMMAND
                    ),
                )),
                Ok(params) => self.impact(params.arguments.first()),
            };
        let response = match answer {
            Ok(value) => Response::new_ok(id, value),
            Err((code, message)) => Response::new_err(id, code as i32, message),
        };
        self.send(Message::Response(response))
    }

    /// The impact report of the working tree as the buffers hold it (`null` before keel
    /// could read the working tree).
    fn impact(
        &mut self,
        argument: Option<&serde_json::Value>,
    ) -> Result<serde_json::Value, (ErrorCode, String)> {
        let failed = |message: String| (ErrorCode::RequestFailed, message);
        // The tip is the working tree's commit on top of HEAD, or HEAD itself while they
        // agree.
        let Some(tip) = Tip::get(&self.db).commit(&self.db) else {
            return Ok(serde_json::Value::Null);
        };
        let base = match self.worktree {
            Some(id) if id == tip.id(&self.db) => tip.parents(&self.db).first().copied(),
            _ => Some(tip),
        };
        let graded = |err: impact::ImpactError| match err {
            impact::ImpactError::Argument(message) => (ErrorCode::InvalidParams, message),
            impact::ImpactError::Refused(message) => failed(message),
        };
        let sides = impact::sides(&self.db, base, tip).map_err(graded)?;
        let bound = tip_file_bound(&self.db, tip).0;
        let base_tree = Trees::holding(
            &mut self.db,
            &mut self.trees.head,
            sides.base.clone(),
            bound,
        )
        .map_err(failed)?;
        let candidate = Trees::holding(
            &mut self.db,
            &mut self.trees.worktree,
            sides.candidate.clone(),
            bound,
        )
        .map_err(failed)?;
        impact::report(&self.db, &sides, (base_tree, candidate), argument).map_err(graded)
    }

    /// Runs `answer` on the document and position a request names (`textDocument`,
    /// `position`), with the view of the working tree.
    fn on_position(
        &self,
        request: &Request,
        answer: impl Fn(&navigation::View<'_>, &str, lsp_types::Position) -> Option<serde_json::Value>,
    ) -> Result<Option<serde_json::Value>, String> {
        let params: lsp_types::TextDocumentPositionParams =
            serde_json::from_value(request.params.clone()).map_err(|err| err.to_string())?;
        let Some(path) = repo_path(&self.root, &params.text_document.uri) else {
            return Ok(None);
        };
        Ok(self.with_view(|view| answer(view, &path, params.position)))
    }

    /// Runs `answer` on the document a request names (`textDocument`).
    fn on_document(
        &self,
        request: &Request,
        answer: impl Fn(&navigation::View<'_>, &str) -> Option<serde_json::Value>,
    ) -> Result<Option<serde_json::Value>, String> {
        let params: lsp_types::DocumentSymbolParams =
            serde_json::from_value(request.params.clone()).map_err(|err| err.to_string())?;
        let Some(path) = repo_path(&self.root, &params.text_document.uri) else {
            return Ok(None);
        };
        Ok(self.with_view(|view| answer(view, &path)))
    }

    /// The working tree as the editor holds it, for answers about positions.
    fn with_view<T>(&self, answer: impl FnOnce(&navigation::View<'_>) -> T) -> T {
        let tip = Tip::get(&self.db).commit(&self.db);
        let nodes = tip
            .and_then(|tip| spec_nodes(&self.db, tip).ok())
            .unwrap_or_default();
        let text = |path: &str| -> Option<String> {
            match self.db.buffer(path) {
                Some(text) => String::from_utf8(text.to_vec()).ok(),
                None => std::fs::read_to_string(self.root.join(path)).ok(),
            }
        };
        let files = || -> Vec<String> {
            tip.and_then(|tip| tree_files(&self.db, tip).ok())
                .unwrap_or_default()
                .into_iter()
                .map(|(path, _)| path)
                .collect()
        };
        answer(&navigation::View {
            text: &text,
            nodes: &nodes,
            report: self.report.as_ref(),
            files: &files,
            worktree: WORKTREE,
            max_file_bytes: tip.map_or(u64::MAX, |tip| tip_file_bound(&self.db, tip).0),
        })
    }

    /// A request keel does not serve: a JSON-RPC error, and the server goes on.
    fn refuse(&self, request: &Request) -> Result<(), ServerError> {
        let response = Response::new_err(
            request.id.clone(),
            ErrorCode::MethodNotFound as i32,
            format!("keel lsp does not serve `{}`", request.method),
        );
        self.send(Message::Response(response))
    }

    /// A document opened, changed, saved or closed: the buffer is set (or dropped). What
    /// moved: a change or an open moves only buffers; a save or a close may leave the file
    /// on disk other than it was last read.
    fn notified(&mut self, notification: Notification) -> Moved {
        let moved = match notification.method.as_str() {
            DidSaveTextDocument::METHOD | DidCloseTextDocument::METHOD => Moved::Disk,
            _ => Moved::Buffers,
        };
        let buffer = match notification.method.as_str() {
            DidOpenTextDocument::METHOD => notification
                .extract::<lsp_types::DidOpenTextDocumentParams>(DidOpenTextDocument::METHOD)
                .ok()
                .map(|p| (p.text_document.uri, Some(p.text_document.text))),
            DidChangeTextDocument::METHOD => notification
                .extract::<lsp_types::DidChangeTextDocumentParams>(DidChangeTextDocument::METHOD)
                .ok()
                .and_then(|p| {
                    let text = p.content_changes.into_iter().last()?.text;
                    Some((p.text_document.uri, Some(text)))
                }),
            DidSaveTextDocument::METHOD => notification
                .extract::<lsp_types::DidSaveTextDocumentParams>(DidSaveTextDocument::METHOD)
                .ok()
                .and_then(|p| Some((p.text_document.uri, Some(p.text?)))),
            DidCloseTextDocument::METHOD => notification
                .extract::<lsp_types::DidCloseTextDocumentParams>(DidCloseTextDocument::METHOD)
                .ok()
                .map(|p| (p.text_document.uri, None)),
            _ => None,
        };
        let Some((uri, text)) = buffer else {
            return Moved::Nothing;
        };
        let Some(path) = repo_path(&self.root, &uri) else {
            return Moved::Nothing;
        };
        let event = ChangeEvent::Buffer {
            path,
            text: text.map(|text| Arc::from(text.into_bytes())),
        };
        match self.db.apply_changes(&[event]) {
            Ok(_) => moved,
            Err(_) => Moved::Nothing,
        }
    }

    /// Lints the working tree as the editor holds it and publishes the diagnostics of
    /// every file whose list changed (an empty list for a file that had some); specs keel
    /// refuses are published instead of findings. A working tree keel cannot read
    /// publishes nothing new: the last diagnostics stand.
    fn publish(&mut self, moved: Moved) {
        let files = match self.lint(moved) {
            Ok(report) => {
                let files = diagnostics::diagnostics(&self.db, &report, WORKTREE);
                self.report = Some(report);
                files
            }
            Err(Some(LintError::Specs(errors))) => diagnostics::spec_refusals(&errors),
            Err(_) => return,
        };
        let cleared: Vec<String> = self
            .published
            .keys()
            .filter(|path| !files.contains_key(*path))
            .cloned()
            .collect();
        for path in cleared {
            let _ = self.send_diagnostics(&path, Vec::new());
        }
        for (path, list) in &files {
            if self.published.get(path) != Some(list) {
                let _ = self.send_diagnostics(path, list.clone());
            }
        }
        self.published = files;
    }

    /// The working tree's report; `Err(None)` when the working tree cannot be read.
    fn lint(&mut self, moved: Moved) -> Result<LintReport, Option<LintError>> {
        let event = match moved {
            Moved::Buffers => ChangeEvent::WorktreeBuffers,
            Moved::Nothing | Moved::Disk => ChangeEvent::Worktree,
        };
        let changed = self.db.apply_changes(&[event]).map_err(|_| None)?;
        self.worktree = changed.worktree;
        let mut report = lint_scope(&self.db, Scope::Full).map_err(Some)?;
        if let Some(commit) = self.worktree {
            report.name_commit(&commit.to_string(), WORKTREE);
        }
        Ok(report)
    }

    fn send_diagnostics(
        &self,
        path: &str,
        diagnostics: Vec<Diagnostic>,
    ) -> Result<(), ServerError> {
        let Some(uri) = file_uri(&self.root.join(path)) else {
            return Ok(());
        };
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version: None,
        };
        self.send(Message::Notification(Notification::new(
            PublishDiagnostics::METHOD.to_owned(),
            params,
        )))
    }

    fn send(&self, message: Message) -> Result<(), ServerError> {
        self.connection
            .sender
            .send(message)
            .map_err(|err| ServerError::Closed(err.to_string()))
    }
}

/// What a batch of messages moved, least to most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Moved {
    Nothing,
    /// The editor's buffers only: the files on disk are as last read.
    Buffers,
    /// Files on disk may have moved too (a save, a close, an outside change).
    Disk,
}

/// The requests of one wake, and the ids the editor cancelled.
#[derive(Default)]
struct Batch {
    requests: Vec<Request>,
    cancelled: std::collections::HashSet<lsp_server::RequestId>,
}

/// The request a `$/cancelRequest` notification cancels.
fn cancelled_id(message: &Message) -> Option<lsp_server::RequestId> {
    use lsp_types::notification::Cancel;
    let Message::Notification(notification) = message else {
        return None;
    };
    if notification.method != Cancel::METHOD {
        return None;
    }
    let params: lsp_types::CancelParams =
        serde_json::from_value(notification.params.clone()).ok()?;
    Some(match params.id {
        lsp_types::NumberOrString::Number(number) => number.into(),
        lsp_types::NumberOrString::String(text) => text.into(),
    })
}

/// Lines `start` to `end` (1-based, inclusive) as an LSP range: from the first line's
/// start to the start of the line after the last.
fn lines(start: u32, end: u32) -> lsp_types::Range {
    lsp_types::Range {
        start: lsp_types::Position {
            line: start.saturating_sub(1),
            character: 0,
        },
        end: lsp_types::Position {
            line: end,
            character: 0,
        },
    }
}

/// The repository path of a `file:` URI inside the working tree `root`.
fn repo_path(root: &Path, uri: &Uri) -> Option<String> {
    let text = uri.as_str().strip_prefix("file://")?;
    let path = PathBuf::from(percent_decoded(text)?);
    let path = std::fs::canonicalize(&path).unwrap_or(path);
    let relative = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = relative
        .components()
        .map(|c| c.as_os_str().to_str())
        .collect();
    let joined = parts?.join("/");
    (!joined.is_empty() && !joined.starts_with(".git/")).then_some(joined)
}

/// The `file:` URI of an absolute path (every byte outside RFC 3986's unreserved set and
/// `/` percent-encoded).
fn file_uri(path: &Path) -> Option<Uri> {
    let text = path.to_str()?;
    let mut encoded = String::from("file://");
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                encoded.push(char::from(byte));
            }
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    encoded.parse().ok()
}

/// `text` with its `%XX` escapes decoded, if they decode to UTF-8.
fn percent_decoded(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = std::str::from_utf8(bytes.get(at + 1..at + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_and_its_uri_round_trip_through_percent_escapes() {
        let root = Path::new("/work/a b");
        let uri = file_uri(&root.join("src/ünï code.py")).expect("a URI");
        assert_eq!(
            uri.as_str(),
            "file:///work/a%20b/src/%C3%BCn%C3%AF%20code.py"
        );
        assert_eq!(repo_path(root, &uri).as_deref(), Some("src/ünï code.py"));
        let outside = file_uri(Path::new("/elsewhere/x.py")).expect("a URI");
        assert_eq!(repo_path(root, &outside), None);
        let git = file_uri(&root.join(".git/config")).expect("a URI");
        assert_eq!(repo_path(root, &git), None);
    }
}
