//! The engine's allocator: free lists per size class in front of the standard one.
//!
//! The checker allocates and frees a few small parts per transition (the CLI uses mimalloc
//! for that reason). In wasm the standard allocator is dlmalloc, which took about a
//! quarter of the engine's time on the async pipelines (docs/performance.md). Here a small
//! block is popped from and pushed to its size class's list, which no search needs; the
//! classes are refilled from chunks of the standard allocator and never given back, which
//! a worker that answers one check after another can afford: each class holds at most its
//! own peak. Large or over-aligned blocks go to the standard allocator as before.
//!
//! Blocks handed out and taken back are counted in `fencelab::heap` (small ones at their
//! class's size), so that the explorer's memory cap bounds the heap the worker holds. The
//! free lists' spare blocks are not counted: a check reuses them before the wasm memory
//! grows again.
//!
//! `GlobalAlloc` passes each block's layout back on free, so blocks carry no header. The
//! engine runs single-threaded (wasm without atomics), so the lists need no lock.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::ptr;

/// Blocks up to this size come from the free lists.
const LARGEST_SMALL: usize = 4096;
/// Every small block is aligned to this, and its size is a multiple of it.
const GRAIN: usize = 16;
/// Classes: multiples of 16 up to 256 (16 of them), then 512, 1024, 2048, 4096.
const CLASSES: usize = 20;
/// Each refill takes this much from the standard allocator.
const CHUNK: usize = 64 * 1024;

pub struct SizeClasses {
    state: UnsafeCell<Lists>,
}

struct Lists {
    /// Per class, the first free block; a free block holds the next one's address.
    free: [*mut u8; CLASSES],
    /// Where the current chunk's unused rest starts and ends.
    bump: *mut u8,
    end: *mut u8,
}

// SAFETY: the engine is wasm32 without atomics: one thread touches the lists. Native
// builds (its unit tests) use their own instance from one thread only.
unsafe impl Sync for SizeClasses {}

impl SizeClasses {
    pub const fn new() -> SizeClasses {
        SizeClasses { state: UnsafeCell::new(Lists { free: [ptr::null_mut(); CLASSES], bump: ptr::null_mut(), end: ptr::null_mut() }) }
    }
}

/// The class of a block of `size` bytes, and the class's block size.
fn class_of(size: usize) -> (usize, usize) {
    let size = size.max(1);
    if size <= 256 {
        let grains = size.div_ceil(GRAIN);
        (grains - 1, grains * GRAIN)
    } else {
        let block = size.next_power_of_two();
        // 512 is class 16, 1024 class 17, 2048 class 18, 4096 class 19.
        (16 + (block.trailing_zeros() as usize - 9), block)
    }
}

fn is_small(layout: &Layout) -> bool {
    layout.size() <= LARGEST_SMALL && layout.align() <= GRAIN
}

unsafe impl GlobalAlloc for SizeClasses {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !is_small(&layout) {
            let out = System.alloc(layout);
            if !out.is_null() {
                fencelab::heap::allocated(layout.size());
            }
            return out;
        }
        let lists = &mut *self.state.get();
        let (class, block) = class_of(layout.size());
        let head = lists.free[class];
        if !head.is_null() {
            lists.free[class] = head.cast::<*mut u8>().read();
            fencelab::heap::allocated(block);
            return head;
        }
        if (lists.end as usize) - (lists.bump as usize) < block {
            // The rest of the old chunk is too small for this block: left unused.
            let chunk = System.alloc(Layout::from_size_align_unchecked(CHUNK, GRAIN));
            if chunk.is_null() {
                return chunk;
            }
            lists.bump = chunk;
            lists.end = chunk.add(CHUNK);
        }
        let out = lists.bump;
        lists.bump = out.add(block);
        fencelab::heap::allocated(block);
        out
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !is_small(&layout) {
            // Fresh pages from the standard allocator need no zeroing.
            let out = System.alloc_zeroed(layout);
            if !out.is_null() {
                fencelab::heap::allocated(layout.size());
            }
            return out;
        }
        let out = self.alloc(layout);
        if !out.is_null() {
            ptr::write_bytes(out, 0, layout.size());
        }
        out
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if !is_small(&layout) {
            fencelab::heap::freed(layout.size());
            return System.dealloc(ptr, layout);
        }
        let lists = &mut *self.state.get();
        let (class, block) = class_of(layout.size());
        fencelab::heap::freed(block);
        ptr.cast::<*mut u8>().write(lists.free[class]);
        lists.free[class] = ptr;
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        match (is_small(&layout), is_small(&new_layout)) {
            (false, false) => {
                let out = System.realloc(ptr, layout, new_size);
                // A failed realloc leaves the old block in place.
                if !out.is_null() {
                    fencelab::heap::freed(layout.size());
                    fencelab::heap::allocated(new_size);
                }
                out
            }
            (true, true) if class_of(layout.size()).0 == class_of(new_size).0 => ptr,
            _ => {
                let out = self.alloc(new_layout);
                if !out.is_null() {
                    ptr::copy_nonoverlapping(ptr, out, layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                }
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_cover_every_small_size_with_a_block_at_least_as_large() {
        let mut last = 0;
        for size in 1..=LARGEST_SMALL {
            let (class, block) = class_of(size);
            assert!(class < CLASSES && block >= size && block.is_multiple_of(GRAIN), "{size}: {class} {block}");
            assert!(class >= last, "classes grow with size");
            last = class;
        }
        assert_eq!(class_of(LARGEST_SMALL), (CLASSES - 1, LARGEST_SMALL));
    }

    #[test]
    fn live_blocks_never_overlap_and_keep_their_bytes_through_reuse_and_realloc() {
        let heap = SizeClasses::new();
        let mut live: Vec<(*mut u8, Layout, u8)> = Vec::new();
        // A fixed pseudo-random mix of sizes (small, large, over-aligned), frees and reallocs.
        let mut seed = 0x2545_f491_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for step in 0..20_000u32 {
            let roll = next();
            if roll % 3 == 0 && !live.is_empty() {
                let (ptr, layout, fill) = live.swap_remove((roll as usize / 3) % live.len());
                unsafe {
                    assert!((0..layout.size()).all(|i| *ptr.add(i) == fill), "block of {} kept its bytes", layout.size());
                    if roll % 2 == 0 {
                        let new_size = 1 + (next() as usize % 6000);
                        let moved = heap.realloc(ptr, layout, new_size);
                        assert!(!moved.is_null());
                        let kept = layout.size().min(new_size);
                        assert!((0..kept).all(|i| *moved.add(i) == fill), "realloc kept the bytes");
                        let layout = Layout::from_size_align(new_size, layout.align()).expect("layout");
                        ptr::write_bytes(moved, fill, new_size);
                        live.push((moved, layout, fill));
                    } else {
                        heap.dealloc(ptr, layout);
                    }
                }
            } else {
                let size = 1 + (roll as usize >> 8) % if roll % 7 == 0 { 9000 } else { 300 };
                let align = if roll % 11 == 0 { 64 } else { 1 << ((roll >> 4) % 5) };
                let layout = Layout::from_size_align(size, align).expect("layout");
                let fill = step as u8;
                unsafe {
                    let ptr = heap.alloc(layout);
                    assert!(!ptr.is_null() && (ptr as usize).is_multiple_of(align), "aligned to {align}");
                    ptr::write_bytes(ptr, fill, size);
                    live.push((ptr, layout, fill));
                }
            }
        }
        let mut spans: Vec<(usize, usize)> = live.iter().map(|(p, l, _)| (*p as usize, *p as usize + l.size())).collect();
        spans.sort_unstable();
        assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0), "no two live blocks overlap");
        for (ptr, layout, _) in live {
            unsafe { heap.dealloc(ptr, layout) };
        }
    }
}
