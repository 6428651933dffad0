//! The heap the process holds, as counted by an allocator that reports here: the CLI's
//! and the browser engine's count every block they hand out and take back, so that the
//! explorer's memory cap bounds the heap really held (visited set, records, memos and all)
//! and not only its estimate of the waiting states (`check::machine::size`). Without such
//! an allocator (the library's tests, other embedders) the count stays 0 and the estimate
//! alone applies.

use std::sync::atomic::{AtomicUsize, Ordering};

static IN_USE: AtomicUsize = AtomicUsize::new(0);

/// An allocator handed out a block of `bytes`.
pub fn allocated(bytes: usize) {
    IN_USE.fetch_add(bytes, Ordering::Relaxed);
}

/// An allocator took back a block of `bytes`.
pub fn freed(bytes: usize) {
    IN_USE.fetch_sub(bytes, Ordering::Relaxed);
}

/// Bytes in blocks handed out and not yet taken back; 0 where no allocator reports.
pub fn in_use() -> usize {
    IN_USE.load(Ordering::Relaxed)
}
