//! The checker's Web Worker: receives check requests as JSON text, answers with progress
//! and reports. Built by trunk as a `data-type="worker"` bin and spawned by the page.

use fencelab_app::protocol::{answer, encode, CheckReply};
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

fn main() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let replier = scope.clone();
    let clock = scope.performance();
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        let request = event.data().as_string().unwrap_or_default();
        let now = || clock.as_ref().map_or(0.0, |p| p.now());
        // A closed port only means the page went away; there is no one left to tell.
        answer(&request, &now, &mut |reply| {
            let _ = replier.post_message(&JsValue::from_str(&reply));
        });
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    let _ = scope.post_message(&JsValue::from_str(&encode(&CheckReply::Ready)));
}
