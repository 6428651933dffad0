//! The checker's Web Worker: receives check requests as JSON text, answers with reports.
//! Built by trunk as a `data-type="worker"` bin and spawned by the page.

use fencelab_app::protocol::{answer, encode, CheckReply};
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

fn main() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let replier = scope.clone();
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        let request = event.data().as_string().unwrap_or_default();
        // A closed port only means the page went away; there is no one left to tell.
        let _ = replier.post_message(&JsValue::from_str(&answer(&request)));
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    let _ = scope.post_message(&JsValue::from_str(&encode(&CheckReply::Ready)));
}
