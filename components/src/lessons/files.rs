//! Browser file glue: save a text as a download, read a picked file as text.

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, Url};

/// Offers `text` as a file download named `name`.
pub fn download(name: &str, text: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = BlobPropertyBag::new();
    options.set_type("application/json");
    let blob = Blob::new_with_str_sequence_and_options(&parts, &options).map_err(describe)?;
    let url = Url::create_object_url_with_blob(&blob).map_err(describe)?;
    let anchor: HtmlAnchorElement = document().create_element("a").map_err(describe)?.unchecked_into();
    anchor.set_href(&url);
    anchor.set_download(name);
    anchor.click();
    // The click has handed the blob to the download; the URL is no longer needed.
    let _ = Url::revoke_object_url(&url);
    Ok(())
}

/// The text of the first file picked in `input`, refusing files over `max_bytes`.
pub async fn read_picked(input: &web_sys::HtmlInputElement, max_bytes: usize) -> Result<String, String> {
    let file = input.files().and_then(|files| files.get(0)).ok_or("no file was chosen")?;
    if file.size() > max_bytes as f64 {
        // Whole bytes, printed as an integer: an `f64` would link the float printer.
        return Err(format!("the file is {} bytes; a progress file is at most {max_bytes}", file.size() as u64));
    }
    let text = JsFuture::from(file.text()).await.map_err(describe)?;
    text.as_string().ok_or_else(|| "the file is not text".to_string())
}

fn describe(err: JsValue) -> String {
    err.as_string()
        .or_else(|| err.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())))
        .unwrap_or_else(|| "the browser refused".to_string())
}
