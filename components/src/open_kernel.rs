//! "Open a kernel": a kernel's PTX, pasted, dropped or picked as a file (plain or
//! `.ptx.gz`), imported by `fencelab::import` and put in the explorer's editor as an
//! ordinary, undoable edit, so the explorer checks and steps it like any scenario.
//!
//! The panel's code is a wasm chunk (`import_panel`), fetched on the first "Open a kernel";
//! the import itself runs in a worker of its own, in a chunk of that worker
//! (`import_kernel`): a CUTLASS kernel takes seconds to import, and the page must not
//! freeze meanwhile. The worker is kept for the next import; one that fails is replaced.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, ErrorEvent, MessageEvent};

use crate::check_client::{start_worker, Attached, CheckerFetch};
use crate::lazy::{lazy_panel, ChunkLoadFailed};
use crate::protocol::{decode_reply, CheckReply};
use crate::state::use_app_state;

/// What the page asks the import worker: the PTX bytes and the launch options.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KernelRequest {
    pub ptx: Vec<u8>,
    pub entry: Option<String>,
    pub cluster: Option<[u32; 3]>,
    pub ctas: Option<u32>,
    pub threads: Option<[u32; 3]>,
    /// `(NAME, OFFSET, VALUE)` per `--param`.
    pub params: Vec<(String, i64, i64)>,
    pub iterations: u32,
}

/// What the import worker answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum KernelReply {
    Imported { entry: String, text: String, threads: usize, decisions: usize, skipped: u64 },
    /// `line` is the PTX line (0: none), `source_line` its text; `entries` lists the
    /// kernels to choose from when no entry was named.
    Failed { line: usize, message: String, source_line: Option<String>, entries: Vec<String> },
}

/// The import, as the worker runs it.
pub fn import_kernel(request: &KernelRequest) -> KernelReply {
    use fencelab::import::{import, input::ptx_text, ErrorKind, ImportOptions, ParamValue};
    let failed = |message: String| KernelReply::Failed { line: 0, message, source_line: None, entries: Vec::new() };
    let text = match ptx_text(request.ptx.clone()) {
        Ok(text) => text,
        Err(why) => return failed(format!("the file is {why}")),
    };
    let options = ImportOptions {
        entry: request.entry.clone().filter(|e| !e.trim().is_empty()),
        cluster: request.cluster,
        ctas: request.ctas,
        threads: request.threads,
        params: request.params.iter().map(|(name, offset, value)| ParamValue { name: name.clone(), offset: *offset, value: *value }).collect(),
        iterations: request.iterations,
    };
    match import(&text, &options) {
        Ok(imported) => KernelReply::Imported {
            entry: imported.entry,
            text: imported.text,
            threads: imported.scenario.threads.len(),
            decisions: imported.fixed.len(),
            skipped: imported.skipped,
        },
        Err(err) => {
            let entries = match &err.kind {
                ErrorKind::ChooseEntry(names) => names.clone(),
                _ => Vec::new(),
            };
            let message = match &err.kind {
                ErrorKind::ChooseEntry(names) => format!("the module has {} kernels: choose one", names.len()),
                // The line is shown on its own.
                _ => message_without_line(&err),
            };
            let source_line = (err.line > 0).then(|| text.lines().nth(err.line - 1).map(|l| l.trim().to_string())).flatten();
            KernelReply::Failed { line: err.line, message, source_line, entries }
        }
    }
}

/// An import error's message without its `line N: ` prefix.
fn message_without_line(err: &fencelab::import::ImportError) -> String {
    let text = err.to_string();
    let prefix = format!("line {}: ", err.line);
    text.strip_prefix(&prefix).map(str::to_string).unwrap_or(text)
}

/// The explorer's "Open a kernel" button and, once opened, the panel from its chunk.
#[component]
pub fn OpenKernel() -> impl IntoView {
    let open = RwSignal::new(false);
    view! {
        <div class="open-kernel" data-open-kernel="">
            <button type="button" class="open-kernel-toggle" aria-expanded=move || open.get().to_string()
                on:click=move |_| open.update(|o| *o = !*o)>
                {move || if open.get() { "Close the kernel import" } else { "Open a kernel (PTX)…" }}
            </button>
            {move || open.get().then(|| lazy_panel("the kernel import", open_kernel_panel()))}
        </div>
    }
}

/// [`KernelPanel`] from its wasm chunk.
#[leptos::wasm_split::wasm_split(import_panel, fallible, wasm_split_path = ::leptos::wasm_split)]
fn open_kernel_panel() -> Result<AnyView, ChunkLoadFailed> {
    Ok(view! { <KernelPanel /> }.into_any())
}

/// Where the PTX comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Ptx {
    Pasted(String),
    /// A dropped or picked file: its name and bytes (gzip is inflated by the import).
    File(String, Vec<u8>),
}

/// What the panel shows under its button.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Status {
    Idle,
    Importing,
    Imported(String),
    /// A problem with the options, before any import.
    BadOption(String),
    Failed { line: usize, message: String, source_line: Option<String>, entries: Vec<String> },
}

#[component]
fn KernelPanel() -> impl IntoView {
    let state = use_app_state();
    let ptx = RwSignal::new(Ptx::Pasted(String::new()));
    let entry = RwSignal::new(String::new());
    let cluster = RwSignal::new(String::new());
    let ctas = RwSignal::new(String::new());
    let threads = RwSignal::new(String::new());
    let iterations = RwSignal::new("2".to_string());
    let params = RwSignal::new(String::new());
    let status = RwSignal::new(Status::Idle);
    let worker = StoredValue::new_local(None::<ImportWorker>);
    let run = move || {
        let request = match request_of(ptx.get_untracked(), &entry.get_untracked(), &cluster.get_untracked(), &ctas.get_untracked(), &threads.get_untracked(), &iterations.get_untracked(), &params.get_untracked()) {
            Ok(request) => request,
            Err(why) => return status.set(Status::BadOption(why)),
        };
        status.set(Status::Importing);
        let on_reply = move |reply: KernelReply| {
            let _ = status.try_set(match reply {
                KernelReply::Imported { entry, text, threads, decisions, skipped } => {
                    state.edit(text, false);
                    Status::Imported(format!(
                        "Imported {entry}: {threads} threads, {decisions} branch decisions (see the header's comments), {skipped} instructions skipped. The explorer checks it now; Undo brings back your program."
                    ))
                }
                KernelReply::Failed { line, message, source_line, entries } => Status::Failed { line, message, source_line, entries },
            });
        };
        let posted = worker.try_update_value(|slot| {
            if slot.as_ref().is_none_or(|w| !w.usable.get()) {
                *slot = ImportWorker::spawn(on_reply, status).ok();
            }
            slot.as_ref().map(|w| w.post(&request))
        });
        if posted.flatten() != Some(true) {
            status.set(Status::Failed { line: 0, message: "could not start the import worker".into(), source_line: None, entries: Vec::new() });
        }
    };
    on_cleanup(move || {
        if let Some(Some(w)) = worker.try_update_value(Option::take) {
            w.attached.stop();
        }
    });
    let read_file = move |file: web_sys::File| {
        let name = file.name();
        leptos::task::spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
                Ok(buffer) => {
                    let _ = ptx.try_set(Ptx::File(name, js_sys::Uint8Array::new(&buffer).to_vec()));
                }
                Err(_) => {
                    let _ = status.try_set(Status::BadOption(format!("the browser could not read `{name}`")));
                }
            }
        });
    };
    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        let Some(data) = ev.data_transfer() else { return };
        if let Some(file) = data.files().and_then(|files| files.get(0)) {
            read_file(file);
        } else if let Ok(text) = data.get_data("text/plain") {
            ptx.set(Ptx::Pasted(text));
        }
    };
    let field = |label: &'static str, name: &'static str, value: RwSignal<String>, hint: &'static str| {
        view! {
            <label class="kernel-option">
                <span>{label}</span>
                <input type="text" name=name placeholder=hint spellcheck="false"
                    prop:value=move || value.get() on:input:target=move |ev| value.set(ev.target().value()) />
            </label>
        }
    };
    view! {
        <section class="panel kernel-panel" data-region="open-kernel" aria-labelledby="kernel-title">
            <h2 id="kernel-title">"Open a kernel"</h2>
            <p class="muted">
                "Paste the PTX of a kernel (" <code>"nvcc -arch=sm_90a -ptx k.cu"</code>
                ", Triton's " <code>"asm[\"ptx\"]"</code> "), or drop a " <code>".ptx"</code> " or " <code>".ptx.gz"</code>
                " file here. Its synchronization becomes a scenario in the editor; each instruction names its PTX line. Nothing is uploaded."
            </p>
            // The button and its answer head the panel: on a wide window the step dock is
            // fixed over the lower part of the left column, where they would be hidden.
            <div class="kernel-run">
                <button type="button" class="kernel-import" data-kernel-import=""
                    disabled=move || status.with(|s| *s == Status::Importing) on:click=move |_| run()>"Import"</button>
                <span class="muted">" the PTX below, with the launch options under it"</span>
            </div>
            {move || status_view(status.get(), entry, run)}
            <div class="kernel-drop" on:dragover=move |ev: web_sys::DragEvent| ev.prevent_default() on:drop=on_drop>
                {move || match ptx.get() {
                    Ptx::Pasted(text) => view! {
                        <textarea class="kernel-ptx" data-kernel-ptx="" spellcheck="false" wrap="off" rows="8"
                            aria-label="Kernel PTX" placeholder=".version 8.8\n.target sm_90a\n.visible .entry kernel(...)"
                            prop:value=text on:input:target=move |ev| ptx.set(Ptx::Pasted(ev.target().value()))></textarea>
                    }.into_any(),
                    Ptx::File(name, bytes) => view! {
                        <p class="kernel-file" data-kernel-file=name.clone()>
                            {format!("{name} ({} bytes)", bytes.len())}
                            " " <button type="button" on:click=move |_| ptx.set(Ptx::Pasted(String::new()))>"Paste instead"</button>
                        </p>
                    }.into_any(),
                }}
                <label class="kernel-pick">
                    "Or choose a file: "
                    <input type="file" accept=".ptx,.gz,.txt" on:change:target=move |ev| {
                        if let Some(file) = ev.target().files().and_then(|f| f.get(0)) {
                            read_file(file);
                        }
                    } />
                </label>
            </div>
            <details class="kernel-options">
                <summary>"Launch options (the kernel's directives by default)"</summary>
                <div class="kernel-option-grid">
                    {field("Entry", "entry", entry, "name or a unique part")}
                    {field("Cluster", "cluster", cluster, "X,Y,Z")}
                    {field("CTAs", "ctas", ctas, "one cluster")}
                    {field("Threads per CTA", "threads", threads, "N or X,Y,Z")}
                    {field("Loop iterations", "iterations", iterations, "2")}
                    <label class="kernel-option kernel-params">
                        <span>"Parameters, one per line"</span>
                        <textarea name="params" rows="2" spellcheck="false" placeholder="NAME=VALUE or NAME+OFFSET=VALUE"
                            prop:value=move || params.get() on:input:target=move |ev| params.set(ev.target().value())></textarea>
                    </label>
                </div>
            </details>
        </section>
    }
}

fn status_view(status: Status, entry: RwSignal<String>, run: impl Fn() + Copy + Send + Sync + 'static) -> AnyView {
    match status {
        Status::Idle => ().into_any(),
        Status::Importing => view! { <p class="kernel-status" aria-busy="true" data-kernel-status="importing">"Importing…"</p> }.into_any(),
        Status::Imported(what) => view! { <p class="kernel-status ok" data-kernel-status="imported" role="status">{what}</p> }.into_any(),
        Status::BadOption(why) => view! { <p class="kernel-status step-error" data-kernel-status="bad-option" role="alert">{why}</p> }.into_any(),
        Status::Failed { line, message, source_line, entries } => {
            let choices = entries
                .into_iter()
                .map(|name| {
                    let chosen = name.clone();
                    view! { <li><button type="button" class="kernel-entry" on:click=move |_| { entry.set(chosen.clone()); run(); }>{name}</button></li> }
                })
                .collect_view();
            view! {
                <div class="kernel-status step-error" data-kernel-status="failed" data-ptx-error-line=line.to_string() role="alert">
                    <p>{if line > 0 { format!("PTX line {line}: {message}") } else { message }}</p>
                    {source_line.map(|text| view! { <pre class="kernel-error-line"><code>{format!("{line:>6} | {text}")}</code></pre> })}
                    <ul class="kernel-entries">{choices}</ul>
                </div>
            }
            .into_any()
        }
    }
}

/// The request the options' text asks for, or what is wrong with them.
fn request_of(ptx: Ptx, entry: &str, cluster: &str, ctas: &str, threads: &str, iterations: &str, params: &str) -> Result<KernelRequest, String> {
    use fencelab::import::input::{parse_dims, parse_param};
    let ptx = match ptx {
        Ptx::Pasted(text) if text.trim().is_empty() => return Err("paste a kernel's PTX or drop its file first".into()),
        Ptx::Pasted(text) => text.into_bytes(),
        Ptx::File(_, bytes) => bytes,
    };
    fn optional(text: &str) -> Option<&str> {
        Some(text.trim()).filter(|t| !t.is_empty())
    }
    let positive = |what: &str, text: &str| text.parse::<u32>().ok().filter(|n| *n > 0).ok_or_else(|| format!("{what}: `{text}` is not a positive number"));
    let iterations = match optional(iterations) {
        Some(text) => positive("loop iterations", text).and_then(|n| if n <= 64 { Ok(n) } else { Err("loop iterations: at most 64".into()) })?,
        None => 2,
    };
    Ok(KernelRequest {
        ptx,
        entry: optional(entry).map(str::to_string),
        cluster: optional(cluster).map(|c| parse_dims(c).map_err(|e| format!("cluster: {e}"))).transpose()?,
        ctas: optional(ctas).map(|c| positive("CTAs", c)).transpose()?,
        threads: optional(threads).map(|t| parse_dims(t).map_err(|e| format!("threads: {e}"))).transpose()?,
        params: params
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| parse_param(l).map(|p| (p.name, p.offset, p.value)).map_err(|e| format!("parameter `{}`: {e}", l.trim())))
            .collect::<Result<_, _>>()?,
        iterations,
    })
}

/// The import worker: the page's wasm in a worker that fetches no checker; it answers
/// `{import: bytes}` with `{imported: bytes}`.
struct ImportWorker {
    attached: Attached,
    ready: Rc<Cell<bool>>,
    queued: Rc<RefCell<Option<Vec<u8>>>>,
    usable: Rc<Cell<bool>>,
}

impl ImportWorker {
    fn spawn(on_reply: impl Fn(KernelReply) + 'static, status: RwSignal<Status>) -> Result<ImportWorker, JsValue> {
        let worker = start_worker(CheckerFetch::Never)?;
        let ready = Rc::new(Cell::new(false));
        let queued: Rc<RefCell<Option<Vec<u8>>>> = Rc::new(RefCell::new(None));
        let usable = Rc::new(Cell::new(true));
        let on_message = {
            let (worker, ready, queued) = (worker.clone(), ready.clone(), queued.clone());
            Closure::<dyn Fn(MessageEvent)>::new(move |ev: MessageEvent| {
                let data = ev.data();
                if let Some(reply) = js_sys::Reflect::get(&data, &"imported".into()).ok().filter(|r| !r.is_undefined()) {
                    let bytes = js_sys::Uint8Array::new(&reply).to_vec();
                    on_reply(postcard::from_bytes(&bytes).unwrap_or_else(|_| KernelReply::Failed {
                        line: 0,
                        message: "the import worker's answer is unreadable".into(),
                        source_line: None,
                        entries: Vec::new(),
                    }));
                    return;
                }
                // The worker's own words: it is ready for requests (nothing else concerns imports).
                if let Ok(CheckReply::Ready) = decode_reply(&js_sys::Uint8Array::new(&data).to_vec()) {
                    ready.set(true);
                    if let Some(request) = queued.borrow_mut().take() {
                        post_import(&worker, &request);
                    }
                }
            })
        };
        let on_error = {
            let usable = usable.clone();
            Closure::<dyn Fn(ErrorEvent)>::new(move |ev: ErrorEvent| {
                ev.prevent_default();
                usable.set(false);
                let _ = status.try_set(Status::Failed {
                    line: 0,
                    message: format!("the import stopped: {}", ev.message()),
                    source_line: None,
                    entries: Vec::new(),
                });
            })
        };
        Ok(ImportWorker { attached: Attached::new(worker, on_message, on_error), ready, queued, usable })
    }

    /// Posts `request`, or queues it until the worker is ready. False if it cannot be encoded.
    fn post(&self, request: &KernelRequest) -> bool {
        let Ok(bytes) = postcard::to_allocvec(request) else { return false };
        if self.ready.get() {
            post_import(&self.attached.worker, &bytes);
        } else {
            *self.queued.borrow_mut() = Some(bytes);
        }
        true
    }
}

fn post_import(worker: &web_sys::Worker, request: &[u8]) {
    let wrapped = js_sys::Object::new();
    let payload = js_sys::Uint8Array::from(request);
    if js_sys::Reflect::set(&wrapped, &"import".into(), &payload).is_ok() {
        let _ = worker.post_message(&wrapped);
    }
}

/// The worker's side: answers an `{import: bytes}` request from the import chunk.
pub(crate) fn serve_import(request: JsValue, scope: DedicatedWorkerGlobalScope) {
    let bytes = js_sys::Uint8Array::new(&request).to_vec();
    wasm_bindgen_futures::spawn_local(async move {
        let reply = import_in_chunk(bytes).await.unwrap_or_else(|ChunkLoadFailed| {
            postcard::to_allocvec(&KernelReply::Failed {
                line: 0,
                message: "the importer's code did not load (the browser's console says why)".into(),
                source_line: None,
                entries: Vec::new(),
            })
            .unwrap_or_default()
        });
        let wrapped = js_sys::Object::new();
        if js_sys::Reflect::set(&wrapped, &"imported".into(), &js_sys::Uint8Array::from(&reply[..])).is_ok() {
            let _ = scope.post_message(&wrapped);
        }
    });
}

#[leptos::wasm_split::wasm_split(import_kernel, fallible, wasm_split_path = ::leptos::wasm_split)]
fn import_in_chunk(request: Vec<u8>) -> Result<Vec<u8>, ChunkLoadFailed> {
    let reply = match postcard::from_bytes::<KernelRequest>(&request) {
        Ok(request) => import_kernel(&request),
        Err(_) => KernelReply::Failed { line: 0, message: "the import request is unreadable".into(), source_line: None, entries: Vec::new() },
    };
    Ok(postcard::to_allocvec(&reply).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    const RELAY: &str = include_str!("../../tests/import/relay_pipeline.ptx");

    fn request(ptx: &str) -> KernelRequest {
        request_of(Ptx::Pasted(ptx.to_string()), "", "", "", "", "", "").expect("default options")
    }

    #[test]
    fn a_pasted_kernel_imports_with_its_ptx_lines() {
        match import_kernel(&request(RELAY)) {
            KernelReply::Imported { entry, text, threads, .. } => {
                assert!(entry.contains("relay_pipeline"), "{entry}");
                assert!(threads >= 4, "{threads} threads");
                assert!(text.contains("# ptx 262"), "the relay's arrive names its PTX line");
            }
            other => panic!("not imported: {other:?}"),
        }
    }

    #[test]
    fn an_unsupported_line_is_named_with_its_text() {
        let broken = RELAY.replacen("bar.warp.sync", "brx.idx", 1);
        let line = broken.lines().position(|l| l.contains("brx.idx")).expect("edited") + 1;
        match import_kernel(&request(&broken)) {
            KernelReply::Failed { line: at, source_line, message, .. } => {
                assert_eq!(at, line, "{message}");
                assert!(source_line.is_some_and(|t| t.contains("brx.idx")));
                assert!(!message.starts_with("line "), "the line is shown apart: {message}");
            }
            other => panic!("imported: {other:?}"),
        }
    }

    #[test]
    fn options_are_read_and_bad_ones_refused_before_importing() {
        let asked = request_of(Ptx::Pasted("x".into()), " relay ", "2,1", "4", "96", "3", "0+8=128\n\nn=5").expect("valid");
        assert_eq!(asked.entry.as_deref(), Some("relay"));
        assert_eq!((asked.cluster, asked.ctas, asked.threads, asked.iterations), (Some([2, 1, 1]), Some(4), Some([96, 1, 1]), 3));
        assert_eq!(asked.params, vec![("0".to_string(), 8, 128), ("n".to_string(), 0, 5)]);
        assert!(request_of(Ptx::Pasted("  ".into()), "", "", "", "", "", "").is_err(), "nothing to import");
        assert!(request_of(Ptx::Pasted("x".into()), "", "0", "", "", "", "").is_err(), "a zero cluster");
        assert!(request_of(Ptx::Pasted("x".into()), "", "", "", "", "65", "").is_err(), "too many iterations");
        assert!(request_of(Ptx::Pasted("x".into()), "", "", "", "", "", "n").is_err(), "a parameter without a value");
    }

    #[test]
    fn a_gzip_file_imports_like_its_text() {
        let gz = include_bytes!("../../tests/import/cutlass_sm90_ex48_cluster2x1.ptx.gz").to_vec();
        let asked = request_of(Ptx::File("ex48.ptx.gz".into(), gz), "", "", "", "", "", "").expect("valid");
        // Four kernels and none named: the inflated module is read and the choice offered.
        match import_kernel(&asked) {
            KernelReply::Failed { entries, line, .. } => assert_eq!((entries.len(), line), (4, 0), "{entries:?}"),
            other => panic!("imported without an entry: {other:?}"),
        }
    }
}
