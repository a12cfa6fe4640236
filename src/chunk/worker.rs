//! Per-thread scratch space (codec states and block buffers) and the parallel block loop.

use crate::codecs::CodecState;
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

/// Scratch of one worker thread, reused across blocks and calls.
#[derive(Default)]
pub struct Worker {
    /// Codec contexts.
    pub codec: CodecState,
    /// Block buffers.
    pub tmp: [Vec<u8>; 3],
}

impl Worker {
    /// Make sure each block buffer holds at least `n` bytes, and hand out the three buffers.
    pub fn buffers(&mut self, n: usize) -> (&mut CodecState, &mut [u8], &mut [u8], &mut [u8]) {
        for t in self.tmp.iter_mut() {
            if t.len() < n {
                t.resize(n, 0);
            }
        }
        let [a, b, c] = &mut self.tmp;
        (&mut self.codec, &mut a[..n], &mut b[..n], &mut c[..n])
    }
}

thread_local! {
    static WORKER: RefCell<Worker> = RefCell::new(Worker::default());
}

/// Run `f` with this thread's worker (or a fresh one if it is already in use, e.g. when a user
/// callback compresses from inside a compression).
pub fn with_worker<R>(f: impl FnOnce(&mut Worker) -> R) -> R {
    WORKER.with(|w| match w.try_borrow_mut() {
        Ok(mut w) => f(&mut w),
        Err(_) => f(&mut Worker::default()),
    })
}

/// Drop this thread's scratch (`blosc2_free_resources`).
pub fn free_worker() {
    WORKER.with(|w| {
        if let Ok(mut w) = w.try_borrow_mut() {
            *w = Worker::default();
        }
    });
}

/// A way of running jobs in parallel supplied by the application
/// (`blosc2_set_threads_callback`): it must call `job(i)` for every `i < njobs` and return when
/// all have returned.
pub trait Executor: Send + Sync {
    /// Run `njobs` jobs.
    fn run(&self, njobs: usize, job: &(dyn Fn(usize) + Sync));
}

static EXECUTOR: RwLock<Option<Arc<dyn Executor>>> = RwLock::new(None);

/// Install (or remove, with `None`) the application's executor.
pub fn set_executor(e: Option<Arc<dyn Executor>>) {
    *EXECUTOR.write().unwrap_or_else(|e| e.into_inner()) = e;
}

/// Run `job(j)` for each `j < n` on up to `nthreads` threads (the calling one included).
pub fn parallel_for(nthreads: usize, n: usize, job: &(dyn Fn(usize) + Sync)) {
    let nthreads = nthreads.max(1).min(n);
    if nthreads <= 1 {
        (0..n).for_each(job);
        return;
    }
    let next = AtomicUsize::new(0);
    let drain = || loop {
        let j = next.fetch_add(1, Ordering::Relaxed);
        if j >= n {
            break;
        }
        job(j);
    };
    let custom = EXECUTOR.read().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(exec) = custom {
        exec.run(nthreads, &|_| drain());
        return;
    }
    std::thread::scope(|s| {
        for _ in 1..nthreads {
            s.spawn(drain);
        }
        drain();
    });
}
