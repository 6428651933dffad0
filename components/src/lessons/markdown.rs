//! The lesson Markdown renderer, a wasm of its own (`markdown/`, built by trunk's
//! post_build hook into `fencelab-markdown.js`): loaded with the course, so the app's
//! first load carries no Markdown parser (docs/loading.md).

use std::cell::RefCell;

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Where the hook puts the renderer's glue, relative to the page.
const RENDERER_URL: &str = "./fencelab-markdown.js";

thread_local! {
    /// The module's `render(markdown, files, hrefs)`, once `load` has finished.
    static RENDER: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
}

/// Starts importing the renderer module (its glue fetches and compiles the wasm when
/// `finish_loading` runs it); `Ok(None)` when it is loaded already.
pub fn start_loading() -> Result<Option<JsFuture>, String> {
    if RENDER.with(|render| render.borrow().is_some()) {
        return Ok(None);
    }
    let url = web_sys::Url::new_with_base(RENDERER_URL, &base_url()).map_err(failed)?.href();
    // wasm-bindgen has no dynamic import; a function built from text can use one.
    let import = js_sys::Function::new_with_args("url", "return import(url)");
    let pending = import.call1(&JsValue::NULL, &url.into()).map_err(failed)?;
    Ok(Some(JsFuture::from(pending.unchecked_into::<js_sys::Promise>())))
}

/// Instantiates the module `start_loading` imported; the lessons screens show the error
/// when this fails.
pub async fn finish_loading(started: Result<Option<JsFuture>, String>) -> Result<(), String> {
    let Some(import) = started? else { return Ok(()) };
    let module = import.await.map_err(failed)?;
    let init = js_sys::Reflect::get(&module, &"default".into()).map_err(failed)?;
    let init = init.dyn_into::<js_sys::Function>().map_err(failed)?;
    JsFuture::from(init.call0(&JsValue::NULL).map_err(failed)?.unchecked_into::<js_sys::Promise>()).await.map_err(failed)?;
    let render = js_sys::Reflect::get(&module, &"render".into()).map_err(failed)?;
    let render = render.dyn_into::<js_sys::Function>().map_err(failed)?;
    RENDER.with(|slot| *slot.borrow_mut() = Some(render));
    Ok(())
}

fn failed(err: impl Into<JsValue>) -> String {
    format!("the lesson text renderer did not load ({})", describe(&err.into()))
}

/// `markdown` as safe HTML (see `fencelab::lesson::render_markdown_linked`); a link to
/// the lesson file `links[i].0` goes to `links[i].1`. Before `load` has finished, or if
/// the renderer fails, a note saying so (escaped, never the author's text as HTML).
pub fn render(markdown: &str, links: &[(String, String)]) -> String {
    let files: js_sys::Array = links.iter().map(|(file, _)| JsValue::from_str(file)).collect();
    let hrefs: js_sys::Array = links.iter().map(|(_, href)| JsValue::from_str(href)).collect();
    let rendered = RENDER.with(|render| {
        let render = render.borrow();
        let render = render.as_ref().ok_or_else(|| "the lesson text renderer has not loaded".to_string())?;
        render
            .call3(&JsValue::NULL, &markdown.into(), &files, &hrefs)
            .map_err(|err| describe(&err))?
            .as_string()
            .ok_or_else(|| "the lesson text renderer returned no text".to_string())
    });
    rendered.unwrap_or_else(|why| format!("<p class=\"render-error\" role=\"alert\">This text cannot be shown: {}.</p>", escape(&why)))
}

fn base_url() -> String {
    web_sys::window().and_then(|w| w.document()).and_then(|d| d.base_uri().ok().flatten()).unwrap_or_default()
}

fn describe(err: &JsValue) -> String {
    err.as_string()
        .or_else(|| err.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())))
        .unwrap_or_else(|| "unknown error".into())
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
