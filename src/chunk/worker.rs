//! Per-thread scratch space (codec states and block buffers) and the parallel block loop.

use super::pool_sync::{Latch, Queue};
use crate::codecs::CodecState;
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

/// Scratch of one worker thread, reused across blocks and calls.
///
/// # Examples
///
/// ```
/// use b2rs::chunk::worker::Worker;
///
/// let mut w = Worker::default();
/// let (_codec, a, b, c) = w.buffers(1024);
/// assert_eq!((a.len(), b.len(), c.len()), (1024, 1024, 1024));
/// ```
#[derive(Default)]
pub struct Worker {
    /// Codec contexts.
    pub codec: CodecState,
    /// Block buffers.
    pub tmp: [Vec<u8>; 3],
    /// The prefilter's output for the block being compressed.
    pub pre: Vec<u8>,
    /// Which of the threads of a parallel run uses the worker now (0 outside one): what
    /// postfilters get as `tid`.
    pub tid: usize,
}

impl Worker {
    /// Make sure each block buffer holds at least `n` bytes, and hand out the three buffers.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::chunk::worker::Worker;
    ///
    /// let mut w = Worker::default();
    /// w.buffers(4096).1[0] = 42;
    /// // smaller requests reuse the same buffers
    /// let (_, a, _, _) = w.buffers(16);
    /// assert_eq!((a.len(), a[0]), (16, 42));
    /// ```
    pub fn buffers(&mut self, n: usize) -> (&mut CodecState, &mut [u8], &mut [u8], &mut [u8]) {
        let [a, b, c] = &mut self.tmp;
        // The filter buffers start on a cache line: the SIMD kernels' 32- and 64-byte stores
        // then never straddle two lines (malloc gives 16-byte alignment, and a 16-byte offset
        // splits every other 32-byte store: measured 10-20% on a typesize-2 shuffle). The
        // output buffer is handed over whole to the block ordering, so it starts at 0.
        let (a, b) = (aligned(a, n, ALIGN), aligned(b, n, ALIGN));
        (&mut self.codec, a, b, aligned(c, n, 1))
    }

    /// [`buffers`](Self::buffers) and a prefilter output buffer of `pre` bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::chunk::worker::Worker;
    ///
    /// let mut w = Worker::default();
    /// let (_, a, _, _, pre) = w.buffers_pre(1024, 512);
    /// assert_eq!((a.len(), pre.len()), (1024, 512));
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn buffers_pre(
        &mut self,
        n: usize,
        pre: usize,
    ) -> (&mut CodecState, &mut [u8], &mut [u8], &mut [u8], &mut [u8]) {
        let [a, b, c] = &mut self.tmp;
        let (a, b) = (aligned(a, n, ALIGN), aligned(b, n, ALIGN));
        let p = aligned(&mut self.pre, pre, ALIGN);
        (&mut self.codec, a, b, aligned(c, n, 1), p)
    }
}

/// Alignment of the filter buffers (a cache line).
const ALIGN: usize = 64;

/// `n` bytes of `t` starting at an `align`-aligned address, growing `t` if needed.
fn aligned(t: &mut Vec<u8>, n: usize, align: usize) -> &mut [u8] {
    let fits = |t: &Vec<u8>| {
        let off = t.as_ptr().align_offset(align);
        (off < align && off + n <= t.len()).then_some(off)
    };
    let off = match fits(t) {
        Some(off) => off,
        None => {
            // A fresh zeroed allocation (calloc): large ones come as untouched pages, so a
            // buffer a pipeline never uses does not add to the resident size.
            *t = Vec::new();
            *t = vec![0u8; n + align - 1];
            fits(t).unwrap_or(0)
        }
    };
    &mut t[off..off + n]
}

/// How many workers a thread keeps: one per level of nesting (a prefilter or user codec that
/// decompresses from inside a compression, as python-blosc2's lazy expressions do, gets the
/// next one; deeper calls get a fresh worker).
const LEVELS: usize = 3;

thread_local! {
    static WORKER: [RefCell<Worker>; LEVELS] = Default::default();
}

/// Run `f` with this thread's worker: the first one not in use (a user callback compressing or
/// decompressing from inside a compression gets the next), else a fresh one.
///
/// # Examples
///
/// ```
/// use b2rs::chunk::worker::with_worker;
///
/// let len = with_worker(|w| w.buffers(100).1.len());
/// assert_eq!(len, 100);
/// // the same thread gets the same scratch back
/// assert!(with_worker(|w| w.tmp[0].len() >= 100));
/// ```
pub fn with_worker<R>(f: impl FnOnce(&mut Worker) -> R) -> R {
    WORKER.with(
        |levels| match levels.iter().find_map(|w| w.try_borrow_mut().ok()) {
            Some(mut w) => f(&mut w),
            None => f(&mut Worker::default()),
        },
    )
}

/// Drop this thread's scratch (`blosc2_free_resources`).
///
/// # Examples
///
/// ```
/// use b2rs::chunk::worker::{free_worker, with_worker};
///
/// with_worker(|w| w.buffers(1 << 16).1.len());
/// free_worker();
/// assert!(with_worker(|w| w.tmp.iter().all(|t| t.is_empty())));
/// ```
pub fn free_worker() {
    WORKER.with(|levels| {
        for w in levels {
            if let Ok(mut w) = w.try_borrow_mut() {
                *w = Worker::default();
            }
        }
    });
}

/// A way of running jobs in parallel supplied by the application
/// (`blosc2_set_threads_callback`): it must call `job(i)` for every `i < njobs` and return when
/// all have returned.
///
/// # Examples
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
/// use b2rs::chunk::worker::{parallel_for, set_executor, Executor};
///
/// /// Runs the jobs one after the other on the calling thread, counting them.
/// struct Serial(AtomicUsize);
///
/// impl Executor for Serial {
///     fn run(&self, njobs: usize, job: &(dyn Fn(usize) + Sync)) {
///         self.0.fetch_add(njobs, Ordering::SeqCst);
///         (0..njobs).for_each(job);
///     }
/// }
///
/// let exec = Arc::new(Serial(AtomicUsize::new(0)));
/// set_executor(Some(exec.clone()));
/// let sum = AtomicUsize::new(0);
/// parallel_for(4, 10, &|j| {
///     sum.fetch_add(j, Ordering::SeqCst);
/// });
/// set_executor(None);
/// assert_eq!(sum.into_inner(), 45);
/// assert!(exec.0.load(Ordering::SeqCst) > 0);
/// ```
pub trait Executor: Send + Sync {
    /// Run `njobs` jobs.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use b2rs::chunk::worker::Executor;
    ///
    /// struct Serial;
    ///
    /// impl Executor for Serial {
    ///     fn run(&self, njobs: usize, job: &(dyn Fn(usize) + Sync)) {
    ///         (0..njobs).for_each(job);
    ///     }
    /// }
    ///
    /// let count = AtomicUsize::new(0);
    /// Serial.run(5, &|_| {
    ///     count.fetch_add(1, Ordering::SeqCst);
    /// });
    /// assert_eq!(count.into_inner(), 5);
    /// ```
    fn run(&self, njobs: usize, job: &(dyn Fn(usize) + Sync));
}

static EXECUTOR: RwLock<Option<Arc<dyn Executor>>> = RwLock::new(None);

/// Install (or remove, with `None`) the application's executor.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use b2rs::chunk::worker::{set_executor, Executor};
/// use b2rs::{chunk, CParams, DParams};
///
/// struct Serial;
///
/// impl Executor for Serial {
///     fn run(&self, njobs: usize, job: &(dyn Fn(usize) + Sync)) {
///         (0..njobs).for_each(job);
///     }
/// }
///
/// set_executor(Some(Arc::new(Serial)));
/// // multi-threaded compression now runs its jobs through `Serial`
/// let data: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect();
/// let cparams = CParams { typesize: 4, nthreads: 4, blocksize: 16384, ..CParams::default() };
/// let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
/// let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
/// let mut back = vec![0u8; data.len()];
/// chunk::decompress(&DParams { nthreads: 4, ..DParams::default() }, &buf[..n], &mut back, None).unwrap();
/// assert_eq!(back, data);
/// set_executor(None);
/// ```
pub fn set_executor(e: Option<Arc<dyn Executor>>) {
    *EXECUTOR.write().unwrap_or_else(|e| e.into_inner()) = e;
}

/// A job handed to pool threads: a type-erased `&(dyn Fn() + Sync)` plus its completion latch.
struct Task {
    job: usize,
    vtable: usize,
    latch: Arc<Latch>,
}

/// Threads created once and reused by every call, so that their scratch ([`Worker`]) and codec
/// contexts survive between calls.
struct Pool {
    queue: Queue<Task>,
    threads: Mutex<usize>,
    pid: u32,
}

static POOL: Mutex<Option<Arc<Pool>>> = Mutex::new(None);

fn pool() -> Arc<Pool> {
    let mut g = POOL.lock().unwrap_or_else(|e| e.into_inner());
    let pid = std::process::id();
    match &*g {
        // After fork() the pool's threads do not exist in the child: start a new pool.
        Some(p) if p.pid == pid => p.clone(),
        _ => {
            let p = Arc::new(Pool {
                queue: Queue::default(),
                threads: Mutex::new(0),
                pid,
            });
            *g = Some(p.clone());
            p
        }
    }
}

impl Pool {
    fn ensure_threads(self: &Arc<Self>, n: usize) -> usize {
        let mut have = self.threads.lock().unwrap_or_else(|e| e.into_inner());
        while *have < n {
            let me = self.clone();
            let spawned = std::thread::Builder::new()
                .name("b2rs-worker".into())
                .spawn(move || me.run());
            if spawned.is_err() {
                break;
            }
            *have += 1;
        }
        *have
    }

    fn run(&self) {
        loop {
            let task = self.queue.pop();
            // SAFETY: (job, vtable) are the two halves of a `&(dyn Fn() + Sync)` whose referent
            // outlives the task: `parallel_for` waits on the latch before returning.
            let job: &(dyn Fn() + Sync) = unsafe {
                std::mem::transmute::<(usize, usize), &(dyn Fn() + Sync)>((task.job, task.vtable))
            };
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
            task.latch.finish_one();
        }
    }
}

/// Run `job(j)` for each `j < n` on up to `nthreads` threads (the calling one included). The
/// other threads come from a pool created once (or from the application's executor).
///
/// # Examples
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use b2rs::chunk::worker::parallel_for;
///
/// let sum = AtomicUsize::new(0);
/// parallel_for(2, 100, &|j| {
///     sum.fetch_add(j, Ordering::Relaxed);
/// });
/// assert_eq!(sum.into_inner(), 4950);
/// ```
pub fn parallel_for(nthreads: usize, n: usize, job: &(dyn Fn(usize) + Sync)) {
    parallel_for_tid(nthreads, n, &|_, j| job(j));
}

/// [`parallel_for`] telling each call which of the participating threads runs it: `job(tid,
/// j)`, `tid` in `0..nthreads`, distinct between threads running at the same time (C-Blosc2
/// hands it to prefilters and postfilters, which may keep scratch per thread).
///
/// # Examples
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use b2rs::chunk::worker::parallel_for_tid;
///
/// let max_tid = AtomicUsize::new(0);
/// parallel_for_tid(2, 100, &|tid, _j| {
///     max_tid.fetch_max(tid, Ordering::Relaxed);
/// });
/// assert!(max_tid.into_inner() < 2);
/// ```
pub fn parallel_for_tid(nthreads: usize, n: usize, job: &(dyn Fn(usize, usize) + Sync)) {
    let nthreads = nthreads.max(1).min(n);
    if nthreads <= 1 {
        (0..n).for_each(|j| job(0, j));
        return;
    }
    let next = AtomicUsize::new(0);
    let tids = AtomicUsize::new(0);
    let drain = || {
        let tid = tids.fetch_add(1, Ordering::Relaxed);
        loop {
            let j = next.fetch_add(1, Ordering::Relaxed);
            if j >= n {
                break;
            }
            job(tid, j);
        }
    };
    let custom = EXECUTOR.read().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(exec) = custom {
        exec.run(nthreads, &|_| drain());
        return;
    }
    let pool = pool();
    let helpers = pool.ensure_threads(nthreads - 1).min(nthreads - 1);
    let latch = Arc::new(Latch::new(helpers));
    let erased: &(dyn Fn() + Sync) = &drain;
    // SAFETY: a fat reference is two words; it is rebuilt with the same type in `Pool::run`, and
    // the referent (`drain`, on this stack frame) outlives every task: below, the tasks no thread
    // has started are taken back from the queue (never run), and we wait for the others.
    let (job_ptr, vtable) =
        unsafe { std::mem::transmute::<&(dyn Fn() + Sync), (usize, usize)>(erased) };
    pool.queue.push((0..helpers).map(|_| Task {
        job: job_ptr,
        vtable,
        latch: latch.clone(),
    }));
    drain();
    // every job is claimed: the tasks that no thread has started have nothing left to do
    latch.finish(pool.queue.revoke(|t| Arc::ptr_eq(&t.latch, &latch)));
    latch.wait();
}

/// `dst.copy_from_slice(src)` by up to `nthreads` threads of the pool, in pieces of 256 KiB
/// (one thread below 512 KiB). One core does not reach the memory bandwidth of two: C-Blosc2
/// copies the blocks of memcpyed chunks in its threads too.
///
/// # Panics
///
/// If the lengths differ, as `copy_from_slice`.
///
/// # Examples
///
/// ```
/// use b2rs::chunk::worker::parallel_copy;
///
/// let src: Vec<u8> = (0..2_000_000u32).map(|i| i as u8).collect();
/// let mut dst = vec![0u8; src.len()];
/// parallel_copy(2, &mut dst, &src);
/// assert_eq!(dst, src);
/// ```
pub fn parallel_copy(nthreads: usize, dst: &mut [u8], src: &[u8]) {
    const PIECE: usize = 256 * 1024;
    assert_eq!(dst.len(), src.len(), "parallel_copy: lengths differ");
    if nthreads <= 1 || dst.len() < 2 * PIECE {
        // In pieces even on one thread: glibc copies below 1 MiB with `rep movsb` and larger
        // ones with a vector loop that is ~20% slower on AMD Zen 5 (4 MiB: 33.5 GB/s whole,
        // 40-42 in 64-512 KiB pieces); C-Blosc2 copies a memcpyed chunk block by block.
        for (d, s) in dst.chunks_mut(PIECE).zip(src.chunks(PIECE)) {
            d.copy_from_slice(s);
        }
        return;
    }
    let pieces: Vec<Mutex<&mut [u8]>> = dst.chunks_mut(PIECE).map(Mutex::new).collect();
    parallel_for(nthreads, pieces.len(), &|k| {
        let mut piece = pieces[k].lock().unwrap_or_else(|e| e.into_inner());
        let off = k * PIECE;
        let len = piece.len();
        piece.copy_from_slice(&src[off..off + len]);
    });
}
