//! Pictures out: the current step (lanes, machine and timeline) as SVG or PNG, and the
//! witness as plain text for a bug report. Each names its scenario, mode and step. The
//! pictures are built from the stepper's records as text (`svg_of`, pure and tested
//! natively); the PNG is the same SVG drawn on a canvas.

use fencelab::check::view::{AgentView, EventView, MachineView};
use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::state::{use_app_state, AppState};

mod drawing;

pub use drawing::svg_of;

/// Everything an export shows, read from the session at the click.
#[derive(Clone, Debug)]
pub struct Picture {
    pub title: String,
    pub mode: String,
    /// Steps taken (the step shown) and steps on the tape.
    pub step: usize,
    pub steps: usize,
    pub agents: Vec<AgentView>,
    pub machine: MachineView,
    pub history: Vec<EventView>,
    /// Each thread's program as printed, by thread index (an agent's id).
    pub programs: Vec<Vec<String>>,
}

impl Picture {
    fn of(state: AppState) -> Option<Picture> {
        state.read_tape(|t| {
            let stepper = t.stepper();
            Picture {
                title: t.scenario().title.clone().unwrap_or_else(|| "untitled scenario".to_string()),
                mode: t.mode().name().to_string(),
                step: t.position(),
                steps: t.len().max(t.position()),
                agents: stepper.agents(),
                machine: stepper.snapshot(),
                history: stepper.history().to_vec(),
                programs: programs_of(t.scenario()),
            }
        })
    }

    /// What every export says it shows.
    pub fn caption(&self) -> String {
        format!("{}: {} mode, step {} of {}", self.title, self.mode, self.step, self.steps)
    }

    /// A file name saying the same: `fencelab-<title>-<mode>-step-<n>.<ext>`.
    pub fn file_name(&self, ext: &str) -> String {
        let mut slug = String::new();
        for c in self.title.chars() {
            if c.is_ascii_alphanumeric() {
                slug.push(c.to_ascii_lowercase());
            } else if !slug.ends_with('-') {
                slug.push('-');
            }
        }
        let slug: String = slug.trim_matches('-').chars().take(48).collect();
        format!("fencelab-{slug}-{}-step-{}.{ext}", self.mode, self.step)
    }
}

fn programs_of(scenario: &fencelab::model::Scenario) -> Vec<Vec<String>> {
    scenario.threads.iter().map(|th| th.program.iter().map(fencelab::syntax::instr_text).collect()).collect()
}

/// The witness so far as plain text: the caption, then one line per step with what it
/// did, its edges, failed synchronization and findings, then what each read returned.
pub fn witness_text(p: &Picture) -> String {
    let mut out = format!("fencelab: {}\n\n", p.caption());
    for e in &p.history {
        out.push_str(&format!("{:>3}. {}: {}  ({})\n", e.step + 1, e.agent_name, e.instr_text, plain(&e.description)));
        for edge in &e.edges {
            let scope = edge.scope.clone().unwrap_or_default();
            out.push_str(&format!("     synchronizes-with: {} ⇢ {} ({} {scope})\n", edge.from_agent, edge.to_agent, edge.kind));
        }
        // One line per failed edge, though the core may name it twice.
        for (_, f) in e.failed_edges.iter().enumerate().filter(|(i, f)| !e.failed_edges[..*i].contains(f)) {
            out.push_str(&format!("     no synchronization {} ⇢ {} ({}): {}\n", f.from_agent, f.to_agent, f.cause, plain(&f.reason)));
        }
        for r in e.reads.iter().filter_map(|r| r.stale.as_ref().map(|s| (r, s))) {
            let (r, s) = r;
            out.push_str(&format!(
                "     stale read: {} = {} (missed {} by {}): {}\n",
                r.location,
                r.value,
                s.missed_write.value,
                s.missed_write.writer,
                plain(&s.reason)
            ));
        }
        for f in &e.findings {
            out.push_str(&format!("     finding: {}\n", plain(f)));
        }
    }
    if !p.machine.reads.is_empty() {
        out.push_str("\nValues read:\n");
        for r in &p.machine.reads {
            let stale = r.stale.as_ref().map_or(String::new(), |s| format!(" (stale: {} by {} not seen)", s.missed_write.value, s.missed_write.writer));
            out.push_str(&format!("  {} read {} = {}{stale}\n", r.agent_name, r.location, r.value));
        }
    }
    out
}

/// Checker text without its code backticks.
fn plain(text: &str) -> String {
    text.replace('`', "")
}

/// "Export SVG", "Export PNG" and "Copy witness as text".
#[component]
pub fn ExportButtons() -> impl IntoView {
    let state = use_app_state();
    let status = RwSignal::new(None::<String>);
    let no_session = move || state.read_tape(|_| ()).is_none();
    let export_svg = move |_| {
        let Some(p) = Picture::of(state) else { return };
        let saved = download(&p.file_name("svg"), &svg_of(&p), "image/svg+xml");
        status.set(Some(saved.map_or_else(|why| format!("Not saved: {why}"), |()| format!("Saved {}", p.file_name("svg")))));
    };
    let export_png = move |_| {
        let Some(p) = Picture::of(state) else { return };
        let name = p.file_name("png");
        status.set(Some(match save_png(&svg_of(&p), name.clone()) {
            Ok(()) => format!("Saving {name}…"),
            Err(why) => format!("Not saved: {why}"),
        }));
    };
    let copy_witness = move |_| {
        let Some(p) = Picture::of(state) else { return };
        let text = witness_text(&p);
        wasm_bindgen_futures::spawn_local(async move {
            let copied = copy_text(&text).await;
            let _ = status.try_set(Some(match copied {
                Ok(()) => "Witness copied as text".to_string(),
                Err(why) => format!("Not copied: {why}"),
            }));
        });
    };
    view! {
        <div class="export-buttons" role="group" aria-label="Export this step">
            <button type="button" disabled=no_session on:click=export_svg title="The lanes, machine and timeline of this step as an SVG file">"Export SVG"</button>
            <button type="button" disabled=no_session on:click=export_png title="The same picture as a PNG file">"Export PNG"</button>
            <button type="button" disabled=no_session on:click=copy_witness title="Every step so far as plain text, for a bug report">"Copy witness as text"</button>
            {move || status.get().map(|s| view! { <span class="export-status muted" role="status">{s}</span> })}
        </div>
    }
}

fn download_url(name: &str, url: &str) -> Result<(), String> {
    let anchor = document()
        .create_element("a")
        .map_err(|_| "the page could not make a link".to_string())?
        .dyn_into::<web_sys::HtmlAnchorElement>()
        .map_err(|_| "the page could not make a link".to_string())?;
    anchor.set_href(url);
    anchor.set_download(name);
    anchor.click();
    Ok(())
}

pub(crate) fn download(name: &str, text: &str, mime: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(|_| "the browser refused the file".to_string())?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| "the browser refused the file".to_string())?;
    let saved = download_url(name, &url);
    // The click has started the download; the URL may go once it has.
    set_timeout(move || { let _ = web_sys::Url::revoke_object_url(&url); }, std::time::Duration::from_secs(10));
    saved
}

/// Draws `svg` on a canvas once it has loaded as an image, and saves the canvas as PNG.
fn save_png(svg: &str, name: String) -> Result<(), String> {
    let image = web_sys::HtmlImageElement::new().map_err(|_| "the browser could not draw the picture".to_string())?;
    let loaded = image.clone();
    let onload = Closure::once_into_js(move || {
        let drawn = (|| {
            let canvas = document().create_element("canvas").ok()?.dyn_into::<web_sys::HtmlCanvasElement>().ok()?;
            canvas.set_width(loaded.natural_width());
            canvas.set_height(loaded.natural_height());
            let context = canvas.get_context("2d").ok()??.dyn_into::<web_sys::CanvasRenderingContext2d>().ok()?;
            context.draw_image_with_html_image_element(&loaded, 0.0, 0.0).ok()?;
            canvas.to_data_url_with_type("image/png").ok()
        })();
        if let Some(url) = drawn {
            let _ = download_url(&name, &url);
        }
    });
    image.set_onload(Some(onload.unchecked_ref()));
    let data = format!("data:image/svg+xml;charset=utf-8,{}", String::from(js_sys::encode_uri_component(svg)));
    image.set_src(&data);
    Ok(())
}

async fn copy_text(text: &str) -> Result<(), String> {
    let navigator = window().navigator();
    // `navigator.clipboard` is missing outside secure contexts; calling it would throw.
    let available = js_sys::Reflect::get(&navigator, &wasm_bindgen::JsValue::from_str("clipboard"))
        .is_ok_and(|c| !c.is_undefined() && !c.is_null());
    if !available {
        return Err("this browser gives no clipboard access here".into());
    }
    wasm_bindgen_futures::JsFuture::from(navigator.clipboard().write_text(text))
        .await
        .map(|_| ())
        .map_err(|_| "the browser refused clipboard access".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencelab::check::{Mode, Stepper};
    use fencelab::schedule::Step;

    fn mp_race_picture() -> Picture {
        let loaded = fencelab::load(include_str!("../../templates/mp-relaxed.fence"));
        let mut st = Stepper::new(&loaded.scenario, Mode::Pragmatic).expect("stepper");
        for agent in [0, 0, 1, 1] {
            st.step(Step { agent, choice: 0 }).expect("step");
        }
        Picture {
            title: loaded.scenario.title.clone().unwrap_or_default(),
            mode: "pragmatic".into(),
            step: 4,
            steps: 4,
            agents: st.agents(),
            machine: st.snapshot(),
            history: st.history().to_vec(),
            programs: programs_of(&loaded.scenario),
        }
    }

    #[test]
    fn the_svg_names_its_step_and_shows_the_stale_value() {
        let p = mp_race_picture();
        let svg = svg_of(&p);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains("pragmatic mode, step 4 of 4"), "{svg}");
        assert!(svg.contains("consumer read data = 0 at step 4 (stale): missed 42 by producer"), "{svg}");
        assert!(!svg.contains('`'), "no raw backticks");
        // A drawing: the missed 42 in a dashed box, the stale 0 in a box joined to its reader.
        assert!(svg.contains("stroke-dasharray=\"5 3\"/>") && svg.contains(">not seen</text>"), "the missed write is dashed: {svg}");
        assert!(svg.contains("fill=\"#cf222e\" font-size=\"15\" font-weight=\"bold\" xml:space=\"preserve\">42</text>"), "{svg}");
        assert!(svg.contains(">consumer got 0 (stale)</text>"), "{svg}");
        assert!(svg.contains("<path d=\"M"), "the read is joined to its write");
        assert!(svg.contains(">ld.shared::cta r1, [data]</text>"), "the lanes show the programs");
        assert_eq!(p.file_name("svg"), "fencelab-message-passing-in-one-cta-with-a-relaxed-flag-pragmatic-step-4.svg");
    }

    #[test]
    fn the_witness_text_lists_every_step_and_the_stale_read() {
        let text = witness_text(&mp_race_picture());
        assert!(text.starts_with("fencelab: Message passing in one CTA with a relaxed flag: pragmatic mode, step 4 of 4\n"), "{text}");
        assert!(text.contains("  4. consumer: ld.shared::cta r1, [data]"), "{text}");
        assert!(text.contains("consumer read data = 0 (stale: 42 by producer not seen)"), "{text}");
    }

    #[test]
    fn a_failed_edge_the_core_names_twice_is_drawn_and_listed_once() {
        // Lesson 3's first scenario: the .cta release read from another CTA.
        let src = "cta A\ncta B\nglobal data = 0\nglobal flag = 0\nthread producer @A:\n    st.global [data], 42\n    st.release.cta.global [flag], 1\nthread consumer @B:\n    wait ld.acquire.gpu.global r1, [flag] == 1\n    ld.global r0, [data]\n";
        let loaded = fencelab::load(src);
        let mut st = Stepper::new(&loaded.scenario, Mode::Pragmatic).expect("stepper");
        for agent in [0, 0, 1] {
            st.step(Step { agent, choice: 0 }).expect("step");
        }
        let p = Picture {
            title: "scope".into(),
            mode: "pragmatic".into(),
            step: 3,
            steps: 3,
            agents: st.agents(),
            machine: st.snapshot(),
            history: st.history().to_vec(),
            programs: programs_of(&loaded.scenario),
        };
        let (svg, text) = (svg_of(&p), witness_text(&p));
        assert_eq!(svg.matches("✕ step 3: producer → consumer (scope)").count(), 1, "{svg}");
        assert_eq!(text.matches("no synchronization producer ⇢ consumer (scope)").count(), 1, "{text}");
    }
}
