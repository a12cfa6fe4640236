//! The synchronization of the thread pool of [`super::worker`]: the task queue hand-off and the
//! completion latch, apart from what the tasks carry, so that `tests/loom_pool.rs` can
//! model-check them with `loom` (it includes this file with `#[path]`; see `tools/loom.sh`).
//!
//! In that test (`--cfg loom`, and `cfg(test)` for the test crate) the primitives come from
//! `loom` and the time-based spin becomes a few yields; everywhere else they are `std`'s.

#[cfg(all(loom, test))]
use loom::sync::{
    atomic::{AtomicUsize, Ordering},
    Condvar, Mutex,
};
use std::collections::VecDeque;
#[cfg(not(all(loom, test)))]
use std::sync::{
    atomic::{AtomicUsize, Ordering},
    Condvar, Mutex,
};

/// How long a thread spins before it blocks: waking a blocked thread costs tens of
/// microseconds on a virtual machine, as much as decoding a whole chunk of a fast codec, and
/// the next chunk of a super-chunk loop usually follows within that time.
#[cfg(not(all(loom, test)))]
const SPIN: std::time::Duration = std::time::Duration::from_micros(50);

/// Spin on `ready` for up to [`SPIN`]; whether it became true.
#[cfg(not(all(loom, test)))]
fn spin_until(ready: impl Fn() -> bool) -> bool {
    let t0 = std::time::Instant::now();
    loop {
        for _ in 0..64 {
            if ready() {
                return true;
            }
            std::hint::spin_loop();
        }
        if t0.elapsed() >= SPIN {
            return ready();
        }
    }
}

/// Under loom (which cannot model time) the spin is two plain loads, each a point where loom
/// may switch threads, so that the models explore both the "seen while spinning" and the "then
/// blocked" paths. Not `loom::thread::yield_now`: loom does not run a yielding thread again
/// until the others are blocked or done, so the spin would always succeed and the blocking
/// path (and its lost wake-ups) would never be explored.
#[cfg(all(loom, test))]
fn spin_until(ready: impl Fn() -> bool) -> bool {
    ready() || ready()
}

/// Counts the outstanding tasks of one `parallel_for` call; the caller waits until it is zero.
pub struct Latch {
    left: AtomicUsize,
    lock: Mutex<()>,
    done: Condvar,
}

impl Latch {
    /// A latch waiting for `n` [`Latch::finish_one`] calls.
    pub fn new(n: usize) -> Self {
        Latch {
            left: AtomicUsize::new(n),
            lock: Mutex::new(()),
            done: Condvar::new(),
        }
    }

    /// One task is done (Release: its writes are visible to the waiter). The caller may return
    /// as soon as `left` reaches zero, so a task must not touch anything of the caller's after
    /// this call, and the latch itself must be kept alive by the task (an `Arc`).
    pub fn finish_one(&self) {
        self.finish(1);
    }

    /// `k` tasks are done (or were taken back from the queue, see [`Queue::revoke`]).
    pub fn finish(&self, k: usize) {
        if k > 0 && self.left.fetch_sub(k, Ordering::AcqRel) == k {
            // under the lock, so that a waiter that saw `left > 0` is already waiting
            let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.done.notify_all();
        }
    }

    /// Wait until every task has called [`Latch::finish_one`] (spin a little, then block).
    pub fn wait(&self) {
        if spin_until(|| self.left.load(Ordering::Acquire) == 0) {
            return;
        }
        let mut g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        while self.left.load(Ordering::Acquire) > 0 {
            g = self.done.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// The pool's task queue: callers push, pool threads pop (spin a little, then block).
pub struct Queue<T> {
    tasks: Mutex<VecDeque<T>>,
    /// Tasks in `tasks` (read without the lock by spinning threads).
    queued: AtomicUsize,
    ready: Condvar,
}

impl<T> Default for Queue<T> {
    fn default() -> Self {
        Queue {
            tasks: Mutex::new(VecDeque::new()),
            queued: AtomicUsize::new(0),
            ready: Condvar::new(),
        }
    }
}

impl<T> Queue<T> {
    /// Queue `tasks` and wake the waiting threads.
    pub fn push(&self, tasks: impl IntoIterator<Item = T>) {
        {
            let mut q = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
            let before = q.len();
            q.extend(tasks);
            self.queued.fetch_add(q.len() - before, Ordering::AcqRel);
        }
        self.ready.notify_all();
    }

    /// Take back the queued tasks for which `mine` holds (the caller's own, that no thread has
    /// started); how many. A caller that has claimed every job itself calls this before it
    /// waits: it then waits only for tasks that are running. Without this, a `parallel_for`
    /// nested in a job (a user callback that compresses) deadlocks when every pool thread is
    /// itself waiting on such a nested call: their tasks sit in the queue with no thread free
    /// to start them.
    pub fn revoke(&self, mine: impl Fn(&T) -> bool) -> usize {
        let mut q = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
        let before = q.len();
        q.retain(|t| !mine(t));
        let k = before - q.len();
        self.queued.fetch_sub(k, Ordering::AcqRel);
        k
    }

    /// Take the oldest task, waiting for one if there is none.
    pub fn pop(&self) -> T {
        // a task that follows soon is taken without blocking (see SPIN)
        spin_until(|| self.queued.load(Ordering::Acquire) > 0);
        let mut q = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(t) = q.pop_front() {
                self.queued.fetch_sub(1, Ordering::AcqRel);
                return t;
            }
            q = self.ready.wait(q).unwrap_or_else(|e| e.into_inner());
        }
    }
}
