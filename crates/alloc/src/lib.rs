//! The process's memory allocator: glibc's malloc with its mmap threshold
//! fixed, and recently freed large blocks kept for reuse ([`Recycling`]).
//!
//! glibc's threshold for mapping a block on its own, left dynamic, rises to
//! the size of the largest block freed, and the KV-cache buffers then come
//! from the heap and fragment it: over the SmolLM2 bench of react,
//! plan-execute and critic, peak RSS was 1584 MiB with the dynamic threshold
//! and 907 MiB with it fixed at 128 KiB, both holding the same 1 GiB of
//! caches. Fixed, every block of 128 KiB or more is mapped afresh and
//! unmapped when freed, and a forward pass, which frees and allocates the
//! same activation buffers layer after layer, faulted each in page by page
//! again: about 200,000 page faults per 256-token prefill of Qwen2.5-0.5B.
//! [`Recycling`] keeps freed large blocks, up to [`KEPT_BYTES`] in all, and
//! hands one back for the next request of the same size. Loading a model
//! frees its file's tensors as it packs them, and those blocks are handed
//! back with [`release_kept`] once it is done.

#![deny(missing_docs)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;

/// The process's allocator, for the library's binaries and tests alike.
#[global_allocator]
pub static ALLOCATOR: Recycling = Recycling::new();

/// Gives every kept block back to glibc, and glibc's free heap pages back to
/// the kernel: for after a one-off burst of frees (loading a model, dropping
/// a file's metadata) that later requests will not reuse.
pub fn release_kept() {
    ALLOCATOR.release();
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory to the kernel.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Marks the end of a forward pass: the blocks that were kept before it
/// began and not taken during it are given back. A pass frees and asks for
/// the same sizes layer after layer, and the next pass of the same shape
/// asks for them again; a block that sat through a whole pass unused was
/// sized for a pass of another shape (a longer prompt, a draft's check) and
/// would only add to the resident memory.
pub fn end_of_pass() {
    ALLOCATOR.release_idle();
}

/// `len` zeros whose pages, for a large block, become resident only where
/// they are written: a kept block is reused with its pages handed back to
/// the kernel instead of written over. For buffers filled from the front
/// as they are used (a KV cache sized for more positions than it holds).
pub fn untouched_zeros(len: usize) -> Vec<u16> {
    if len == 0 {
        return Vec::new();
    }
    let Ok(layout) = Layout::array::<u16>(len) else {
        panic!("{len} u16s overflow the address space");
    };
    // SAFETY: a layout of non-zero size.
    let ptr = unsafe { ALLOCATOR.alloc_untouched_zeroed(layout) };
    if ptr.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    // SAFETY: `len` zeroed u16s from the global allocator, with the layout
    // `Vec<u16>` frees them with.
    unsafe { Vec::from_raw_parts(ptr.cast::<u16>(), len, len) }
}

/// Gives back every kept block whose size is not `size`: before a run of
/// allocations of one size (a model file's tensors, read one by one), so
/// that the blocks of the runs before it are not held beside it.
pub fn keep_only(size: usize) {
    ALLOCATOR.release_other_than(size);
}

/// Blocks this large or larger are mapped on their own by glibc, and kept
/// when freed.
pub const LARGE: usize = 128 * 1024;
/// The most freed memory kept for reuse.
pub const KEPT_BYTES: usize = 48 << 20;
/// The most freed blocks kept for reuse.
const KEPT_BLOCKS: usize = 64;
/// The largest alignment glibc's `malloc` gives; larger ones are not kept.
const MALLOC_ALIGN: usize = 16;

/// A global allocator: [`System`], with freed blocks of [`LARGE`] bytes or
/// more kept for reuse, oldest dropped first beyond [`KEPT_BYTES`].
pub struct Recycling {
    kept: Mutex<Kept>,
}

/// Freed blocks, oldest first: size, address and the pass they were kept in.
struct Kept {
    blocks: [(usize, usize, u32); KEPT_BLOCKS],
    len: usize,
    bytes: usize,
    pass: u32,
}

impl Recycling {
    /// An allocator that keeps nothing yet. `mallopt` fixes glibc's
    /// threshold on the first large allocation.
    pub const fn new() -> Self {
        Recycling {
            kept: Mutex::new(Kept {
                blocks: [(0, 0, 0); KEPT_BLOCKS],
                len: 0,
                bytes: 0,
                pass: 0,
            }),
        }
    }

    /// Bytes of freed blocks kept now.
    pub fn kept_bytes(&self) -> usize {
        self.lock().bytes
    }

    /// Gives every kept block back to [`System`].
    pub fn release(&self) {
        let mut kept = self.lock();
        for &(size, ptr, _) in &kept.blocks[..kept.len] {
            // SAFETY: blocks kept under `keep`'s contract, handed out no more.
            unsafe { free(ptr as *mut u8, size) };
        }
        kept.len = 0;
        kept.bytes = 0;
    }

    /// Gives every kept block of another size than `size` back to
    /// [`System`].
    pub fn release_other_than(&self, size: usize) {
        self.lock()
            .release_unless(|block_size, _| block_size == size);
    }

    /// Gives back the blocks kept before the last call and not taken since,
    /// and starts a new pass.
    pub fn release_idle(&self) {
        let mut kept = self.lock();
        let pass = kept.pass;
        kept.release_unless(|_, kept_in| kept_in == pass);
        kept.pass = pass.wrapping_add(1);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn recycles(layout: Layout) -> bool {
        layout.size() >= LARGE && layout.align() <= MALLOC_ALIGN
    }

    /// `alloc_zeroed`, but a kept block is zeroed by handing its whole pages
    /// back to the kernel (see [`untouched_zeros`]).
    ///
    /// # Safety
    /// As [`GlobalAlloc::alloc_zeroed`].
    unsafe fn alloc_untouched_zeroed(&self, layout: Layout) -> *mut u8 {
        if Self::recycles(layout) {
            fix_mmap_threshold();
            if let Some(ptr) = self.take(layout.size()) {
                // SAFETY: a kept block of exactly this size, ours now.
                unsafe { zero_untouched(ptr, layout.size()) };
                return ptr;
            }
        }
        // SAFETY: the caller's layout. glibc maps a large block afresh,
        // and fresh pages are resident only once touched.
        unsafe { System.alloc_zeroed(layout) }
    }

    /// A kept block of exactly `size` bytes, the most recently freed.
    fn take(&self, size: usize) -> Option<*mut u8> {
        let mut kept = self.lock();
        let len = kept.len;
        let i = kept.blocks[..len]
            .iter()
            .rposition(|&(s, _, _)| s == size)?;
        let (_, ptr, _) = kept.blocks[i];
        kept.blocks.copy_within(i + 1..len, i);
        kept.len -= 1;
        kept.bytes -= size;
        Some(ptr as *mut u8)
    }

    /// Keeps a freed block, dropping the oldest ones to make room.
    ///
    /// # Safety
    /// `ptr` must be a block of `size` bytes from [`System`] with an
    /// alignment of at most [`MALLOC_ALIGN`], not used after this.
    unsafe fn keep(&self, ptr: *mut u8, size: usize) {
        if size > KEPT_BYTES {
            // SAFETY: the caller's block, given back to its allocator.
            unsafe { free(ptr, size) };
            return;
        }
        let mut kept = self.lock();
        while kept.len == KEPT_BLOCKS || kept.bytes + size > KEPT_BYTES {
            let (old_size, old, _) = kept.blocks[0];
            let len = kept.len;
            kept.blocks.copy_within(1..len, 0);
            kept.len -= 1;
            kept.bytes -= old_size;
            // SAFETY: a block kept earlier under the same contract.
            unsafe { free(old as *mut u8, old_size) };
        }
        let len = kept.len;
        kept.blocks[len] = (size, ptr as usize, kept.pass);
        kept.len += 1;
        kept.bytes += size;
    }
}

impl Kept {
    /// Gives back every block for which `keep(size, pass kept in)` is false.
    fn release_unless(&mut self, keep: impl Fn(usize, u32) -> bool) {
        let mut len = 0;
        for i in 0..self.len {
            let (size, ptr, pass) = self.blocks[i];
            if keep(size, pass) {
                self.blocks[len] = (size, ptr, pass);
                len += 1;
            } else {
                self.bytes -= size;
                // SAFETY: blocks kept under `keep`'s contract, handed out no more.
                unsafe { free(ptr as *mut u8, size) };
            }
        }
        self.len = len;
    }
}

impl Default for Recycling {
    fn default() -> Self {
        Self::new()
    }
}

/// Gives a block back to glibc.
///
/// # Safety
/// As [`Recycling::keep`].
unsafe fn free(ptr: *mut u8, size: usize) {
    // SAFETY: `System` ignores the alignment of blocks it made with
    // `malloc` (at most `MALLOC_ALIGN`), and the caller vouches for the rest.
    unsafe { System.dealloc(ptr, Layout::from_size_align_unchecked(size, 1)) }
}

/// Zeroes `size` bytes at `ptr`: the whole pages among them by dropping
/// them (the next touch maps a zero page), the edges by writing.
///
/// # Safety
/// `ptr..ptr + size` must be private memory of the caller's.
unsafe fn zero_untouched(ptr: *mut u8, size: usize) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sysconf only reads a constant of the system.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(1) as usize;
        let first = (ptr as usize).next_multiple_of(page);
        let end = (ptr as usize + size) / page * page;
        if end > first {
            // SAFETY: whole pages inside the caller's block; private
            // anonymous pages read as zeros once dropped.
            let dropped = unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_DONTNEED)
            };
            if dropped == 0 {
                // SAFETY: the edges of the caller's block.
                unsafe {
                    ptr.write_bytes(0, first - ptr as usize);
                    (end as *mut u8).write_bytes(0, ptr as usize + size - end);
                }
                return;
            }
        }
    }
    // SAFETY: the caller's block.
    unsafe { ptr.write_bytes(0, size) };
}

/// Fixes glibc's mmap threshold at 128 KiB, once.
fn fix_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::sync::atomic::{AtomicBool, Ordering};
        static FIXED: AtomicBool = AtomicBool::new(false);
        if !FIXED.swap(true, Ordering::Relaxed) {
            // SAFETY: mallopt only changes the allocator's tuning.
            unsafe {
                libc::mallopt(libc::M_MMAP_THRESHOLD, LARGE as libc::c_int);
            }
        }
    }
}

// SAFETY: every block comes from `System` and goes back to it or to the
// kept list, from which it is handed out once, for the size it has.
unsafe impl GlobalAlloc for Recycling {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if Self::recycles(layout) {
            fix_mmap_threshold();
            if let Some(ptr) = self.take(layout.size()) {
                return ptr;
            }
        }
        // SAFETY: the caller's layout, as `GlobalAlloc` requires.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if Self::recycles(layout) {
            fix_mmap_threshold();
            if let Some(ptr) = self.take(layout.size()) {
                // SAFETY: a kept block of exactly this size.
                unsafe { ptr.write_bytes(0, layout.size()) };
                return ptr;
            }
        }
        // SAFETY: the caller's layout, as `GlobalAlloc` requires.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if Self::recycles(layout) {
            // SAFETY: a block of this layout that the caller is done with.
            unsafe { self.keep(ptr, layout.size()) };
        } else {
            // SAFETY: as `GlobalAlloc` requires of the caller.
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY (all below): `GlobalAlloc`'s contract, passed on.
        let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        if !Self::recycles(layout) && !Self::recycles(new) {
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        let moved = unsafe { self.alloc(new) };
        if !moved.is_null() {
            unsafe {
                std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
        }
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn large(n: usize) -> Layout {
        Layout::from_size_align(n, 8).unwrap()
    }

    #[test]
    fn a_freed_large_block_is_reused_for_the_same_size_only() {
        let a = Recycling::new();
        unsafe {
            let p = a.alloc(large(LARGE));
            p.write_bytes(7, LARGE);
            a.dealloc(p, large(LARGE));
            assert_eq!(a.kept_bytes(), LARGE);
            let other = a.alloc(large(LARGE + 64));
            assert_ne!(other, p);
            let zeroed = a.alloc_zeroed(large(LARGE));
            assert_eq!(zeroed, p);
            assert!(std::slice::from_raw_parts(zeroed, LARGE)
                .iter()
                .all(|&b| b == 0));
            assert_eq!(a.kept_bytes(), 0);
            a.dealloc(zeroed, large(LARGE));
            a.dealloc(other, large(LARGE + 64));
            assert_eq!(a.kept_bytes(), 2 * LARGE + 64);
            a.release();
            assert_eq!(a.kept_bytes(), 0);
            let fresh = a.alloc(large(LARGE));
            assert!(!fresh.is_null());
            a.dealloc(fresh, large(LARGE));
        }
    }

    #[test]
    fn only_blocks_of_the_size_asked_for_stay_kept() {
        let a = Recycling::new();
        unsafe {
            let same = a.alloc(large(LARGE));
            let other = a.alloc(large(2 * LARGE));
            a.dealloc(same, large(LARGE));
            a.dealloc(other, large(2 * LARGE));
            assert_eq!(a.kept_bytes(), 3 * LARGE);
            a.release_other_than(LARGE);
            assert_eq!(a.kept_bytes(), LARGE);
            assert_eq!(a.alloc(large(LARGE)), same);
            assert_eq!(a.kept_bytes(), 0);
            a.dealloc(same, large(LARGE));
            a.release();
        }
    }

    #[test]
    fn a_block_idle_through_a_whole_pass_is_given_back() {
        let a = Recycling::new();
        unsafe {
            let reused = a.alloc(large(LARGE));
            let idle = a.alloc(large(2 * LARGE));
            a.dealloc(reused, large(LARGE));
            a.dealloc(idle, large(2 * LARGE));
            a.release_idle();
            assert_eq!(a.kept_bytes(), 3 * LARGE, "kept in the pass just ended");
            let again = a.alloc(large(LARGE));
            assert_eq!(again, reused);
            a.dealloc(again, large(LARGE));
            a.release_idle();
            assert_eq!(a.kept_bytes(), LARGE, "only the block used in this pass");
            assert_eq!(a.alloc(large(LARGE)), reused);
            a.dealloc(reused, large(LARGE));
            a.release();
        }
    }

    #[test]
    fn untouched_zeros_reuse_a_kept_block_as_zeros() {
        let len = 300_000;
        let mut first = untouched_zeros(len);
        assert!(first.iter().all(|&x| x == 0));
        first.iter_mut().for_each(|x| *x = 0xabcd);
        let at = first.as_ptr();
        drop(first);
        let again = untouched_zeros(len);
        assert_eq!(again.as_ptr(), at, "the kept block, reused");
        assert!(again.iter().all(|&x| x == 0));
        assert!(untouched_zeros(0).is_empty());
    }

    #[test]
    fn small_and_overaligned_blocks_are_not_kept() {
        let a = Recycling::new();
        unsafe {
            let small = Layout::from_size_align(LARGE - 1, 8).unwrap();
            a.dealloc(a.alloc(small), small);
            let aligned = Layout::from_size_align(LARGE, 4096).unwrap();
            let p = a.alloc(aligned);
            assert_eq!(p as usize % 4096, 0);
            a.dealloc(p, aligned);
        }
        assert_eq!(a.kept_bytes(), 0);
    }

    #[test]
    fn kept_memory_stays_under_its_cap_oldest_dropped_first() {
        let a = Recycling::new();
        let size = 5 << 20;
        unsafe {
            let blocks: Vec<_> = (0..20).map(|_| a.alloc(large(size))).collect();
            for &p in &blocks {
                a.dealloc(p, large(size));
                assert!(a.kept_bytes() <= KEPT_BYTES);
            }
            assert_eq!(a.kept_bytes(), KEPT_BYTES / size * size);
            let newest = a.alloc(large(size));
            assert_eq!(newest, blocks[19]);
            let grown = a.realloc(newest, large(size), 2 * size);
            assert!(!grown.is_null());
            a.dealloc(grown, large(2 * size));
        }
    }
}
