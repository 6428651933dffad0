//! fencelab in the browser: a Leptos CSR app. One component per screen panel; every
//! semantic question goes to the `fencelab` core, never answered here.

mod analysis;
mod blocks;
mod check_client;
mod coalesce;
mod decimal;
mod editor;
mod explore;
mod execution_graph;
mod export;
mod finding_marks;
mod header;
mod highlight;
mod history;
mod instr_notes;
mod lanes;
mod lesson_page;
mod layout;
mod lazy;
mod lessons;
mod machine_edit;
mod machine_parts;
mod machine_view;
mod observed;
mod open_kernel;
mod perf;
pub mod protocol;
pub mod route;
mod scope_reach;
mod search_caps;
mod share;
mod shared_page;
mod starter;
mod state;
mod step_controls;
mod step_effect;
mod tape;
mod templates;
mod theme;
mod timeline;
mod trace;
mod verdict_panel;
mod fix_panel;
mod source_link;
mod ptx_lines;
mod code_text;
mod guided;
mod storage;
pub mod worker;

use leptos::prelude::*;

use crate::route::Route;

/// The wasm's entry point. The page mounts the app; the checker worker runs this same
/// wasm (see `worker`) and serves check requests instead.
pub fn start() {
    if worker::in_worker() {
        worker::serve();
    } else {
        // The worker starts while the page mounts.
        check_client::hand_module_to_early_worker();
        // In a task of its own: the one that instantiates the wasm already ends the
        // wasm's compilation, and the two together would be one long task.
        set_timeout(|| perf::measured("fencelab:mount", || leptos::mount::mount_to_body(App)), std::time::Duration::ZERO);
    }
}

/// The whole app: header plus the page the URL hash names.
#[component]
pub fn App() -> impl IntoView {
    // The app's state (the starter's load decoded from the build, a parse of any other
    // text): the page itself renders in the next task, so that the two are not one long
    // task (docs/loading.md).
    perf::measured("fencelab:state", state::provide_app_state);
    let rendered = RwSignal::new(false);
    set_timeout(move || rendered.set(true), std::time::Duration::ZERO);
    let route = RwSignal::new(current_route());
    // Hash routing: the browser owns history; we only follow it.
    let _listener = window_event_listener(leptos::ev::hashchange, move |_| {
        route.set(current_route());
    });
    move || {
        rendered.get().then(|| {
            view! {
                <a class="skip-link" href="#main">"Skip to content"</a>
                {(!share::is_embed()).then(|| view! { <header::Header route=route /> })}
                <main id="main" tabindex="-1">
                    {move || page(route.get())}
                </main>
            }
        })
    }
}

fn page(route: Route) -> AnyView {
    match route {
        Route::Explore => view! { <explore::ExplorePage /> }.into_any(),
        // The lessons' code is a chunk of its own, fetched with the first lessons page, and
        // the course and its renderer beside it.
        Route::Lesson(id) => {
            lessons::begin_loading();
            lazy::lazy_panel("the lessons", lesson_page::lesson_page(id)).into_any()
        }
        Route::Shared(code) => view! { <shared_page::SharedPage code=code /> }.into_any(),
        Route::NotFound(hash) => view! {
            <section class="page-message" data-page="not-found">
                <h1>"Page not found"</h1>
                <p>"Nothing lives at " <code>{hash}</code> "."</p>
                <p><a href=Route::Explore.href()>"Open the explorer"</a></p>
            </section>
        }
        .into_any(),
    }
}

pub(crate) fn current_route() -> Route {
    let hash = window().location().hash().unwrap_or_default();
    Route::from_hash(&hash)
}
