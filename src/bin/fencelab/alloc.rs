//! The CLI's allocator: mimalloc, entered through plain `malloc` when the alignment asked
//! for is one every block has.
//!
//! The `mimalloc` crate's wrapper always calls `mi_malloc_aligned`. Its fast path serves
//! only a page with a free block at hand; otherwise a size that is not a power of two
//! takes the over-allocating fallback, which asks for `size + align - 1` bytes and marks
//! the page as holding interior pointers (slower frees). The explorer allocates and frees
//! a few small parts per transition, so that fallback cost about a tenth of its
//! instructions and wasted a size class per part.

//!
//! Every block handed out and taken back is counted in `fencelab::heap`, so that
//! `check --max-memory` bounds the heap the process really holds.
//!
//! It also turns off mimalloc's eager commit of its arenas before the first allocation.
//! On Linux that default commits an arena's memory up front in transparent huge pages,
//! so a checker run's peak RSS counted 2 MiB pages it barely touched: the 3x3 pipeline
//! peaked at 43 MiB with 7 MiB live, and the process alone at 7 MiB.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::{c_int, c_long, c_void};
use std::sync::atomic::{AtomicBool, Ordering};

use libmimalloc_sys::{mi_malloc, mi_realloc, mi_zalloc};
use mimalloc::MiMalloc;

// Declared here: `libmimalloc-sys` binds it only behind a feature, and with the option
// numbers of mimalloc 2.
unsafe extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
}

/// `mi_option_arena_eager_commit` in mimalloc 3's `mi_option_e` (`mimalloc.h` of
/// libmimalloc-sys 0.1.49, pinned in Cargo.lock: check it when that crate moves).
const ARENA_EAGER_COMMIT: c_int = 4;

static CONFIGURED: AtomicBool = AtomicBool::new(false);

/// Sets the options before mimalloc reserves its first arena (at its first allocation).
#[inline]
fn configure() {
    if !CONFIGURED.load(Ordering::Relaxed) {
        // SAFETY: setting an option is allowed at any time; setting it twice is harmless.
        unsafe { mi_option_set(ARENA_EAGER_COMMIT, 0) };
        CONFIGURED.store(true, Ordering::Relaxed);
    }
}

/// Every mimalloc block is aligned to at least a word (its smallest size class is 8 bytes
/// and every class is a multiple of 8).
const BLOCK_ALIGN: usize = 8;

pub struct Allocator;

/// Counts a block of `bytes` handed out, when there is one.
fn counted(block: *mut u8, bytes: usize) -> *mut u8 {
    if !block.is_null() {
        fencelab::heap::allocated(bytes);
    }
    block
}

unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        configure();
        let block = if layout.align() <= BLOCK_ALIGN {
            // SAFETY: mi_malloc returns a block of at least `size` bytes, word-aligned, or null.
            unsafe { mi_malloc(layout.size()).cast() }
        } else {
            // SAFETY: forwarded with the caller's layout.
            unsafe { MiMalloc.alloc(layout) }
        };
        counted(block, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        configure();
        let block = if layout.align() <= BLOCK_ALIGN {
            // SAFETY: as in `alloc`, zeroed.
            unsafe { mi_zalloc(layout.size()).cast() }
        } else {
            // SAFETY: forwarded with the caller's layout.
            unsafe { MiMalloc.alloc_zeroed(layout) }
        };
        counted(block, layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        fencelab::heap::freed(layout.size());
        // SAFETY: every block came from mimalloc, which frees aligned and plain ones alike.
        unsafe { MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let block = if layout.align() <= BLOCK_ALIGN {
            // SAFETY: `ptr` is a mimalloc block; the new one keeps word alignment.
            unsafe { mi_realloc(ptr.cast::<c_void>(), new_size).cast() }
        } else {
            // SAFETY: forwarded with the caller's layout.
            unsafe { MiMalloc.realloc(ptr, layout, new_size) }
        };
        // A failed realloc leaves the old block in place.
        if !block.is_null() {
            fencelab::heap::freed(layout.size());
        }
        counted(block, new_size)
    }
}
