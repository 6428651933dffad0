#[cfg(target_arch = "wasm32")]
use std::alloc::{GlobalAlloc, Layout, System};

/// The app's wasm counts its heap in `fencelab::heap`, as the engine's allocator does
/// (`engine/src/alloc.rs`): the worker answers checks with this wasm until the engine has
/// loaded, and the explorer's memory cap then bounds the heap really held, not only the
/// checker's estimate of its waiting states (issue 49).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: Counted = Counted;

/// The standard allocator (dlmalloc in wasm), counting every block it hands out and
/// takes back.
#[cfg(target_arch = "wasm32")]
struct Counted;

// SAFETY: every call is passed to `System` unchanged; only the counts are added.
#[cfg(target_arch = "wasm32")]
unsafe impl GlobalAlloc for Counted {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() {
            fencelab::heap::allocated(layout.size());
        }
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let block = unsafe { System.alloc_zeroed(layout) };
        if !block.is_null() {
            fencelab::heap::allocated(layout.size());
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: `block` came from `alloc` with `layout`, so from `System`.
        unsafe { System.dealloc(block, layout) };
        fencelab::heap::freed(layout.size());
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `dealloc`.
        let moved = unsafe { System.realloc(block, layout, new_size) };
        if !moved.is_null() {
            fencelab::heap::freed(layout.size());
            fencelab::heap::allocated(new_size);
        }
        moved
    }
}

fn main() {
    console_error_panic_hook::set_once();
    fencelab_app::start();
}
