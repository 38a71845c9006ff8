//! The worker side of the page ↔ worker messages, shared by the two worker programs: the run
//! worker (`worker_main.rs`: timing runs) and the job worker (`jobs_main.rs`: kernel views and PTX
//! diffs). Every message is JSON text; a worker says "ready" once its wasm has loaded, and each
//! request gets its replies through `post`.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use crate::run_job::WorkerReply;

/// Answers every message with `handle(text, post)`, after saying "ready".
pub fn serve(handle: impl Fn(&str, &dyn Fn(&WorkerReply)) + 'static) {
    console_error_panic_hook::set_once();
    let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() else { return };
    let post_scope = scope.clone();
    let post = move |reply: &WorkerReply| {
        let text = serde_json::to_string(reply).unwrap_or_default();
        // A failed post means the page is gone: nothing left to tell.
        let _ = post_scope.post_message(&JsValue::from_str(&text));
    };
    let onmessage = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        let text = event.data().as_string().unwrap_or_default();
        handle(&text, &post);
    });
    scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    // The worker's one handler, for its whole life.
    onmessage.forget();
    let ready = serde_json::to_string(&WorkerReply::Ready).unwrap_or_default();
    let _ = scope.post_message(&JsValue::from_str(&ready));
}
