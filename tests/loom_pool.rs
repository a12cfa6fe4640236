//! Model-checks the thread pool's hand-off (`src/chunk/pool_sync.rs`: task queue + latch) with
//! `loom`, which runs each model under every interleaving of its threads (up to a preemption
//! bound) and checks the memory model: a write not ordered before a read of the same
//! `loom::cell::UnsafeCell` is a data race, a state where every thread is blocked is a
//! deadlock (so a lost wake-up), and an `Arc` not dropped at the end is a leak.
//!
//! Only built with `RUSTFLAGS="--cfg loom"`: run `tools/loom.sh`.
//!
//! `parallel_for` below is `src/chunk/worker.rs`'s with the same protocol: the caller queues
//! one task per helper, runs the job loop itself, waits on the latch, and returns; the helpers
//! pop a task, run the job loop and call `finish_one`. The job loop writes `slots[j]` for each
//! job `j` it claims; the caller's stack frame, which the real tasks point into through a raw
//! pointer, is the `frame` cell: the helpers read it while they run the job loop, and the
//! caller "frees" it (writes it) once `wait` has returned, so any access of a helper to the
//! caller's frame not ordered before that return is reported as a race.
#![cfg(loom)]

#[path = "../src/chunk/pool_sync.rs"]
mod pool_sync;

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;
use pool_sync::{Latch, Queue};

/// What one `parallel_for` call shares with the helpers (on the caller's stack in the real code).
struct Call {
    /// The next unclaimed job (claimed with a relaxed `fetch_add`, as in `worker.rs`).
    next: AtomicUsize,
    /// One output slot per job.
    slots: Vec<UnsafeCell<usize>>,
    /// `true` while the caller's frame exists.
    frame: UnsafeCell<bool>,
    /// Each job makes a nested `parallel_for(2, 1, ..)` call on this pool (a user callback that
    /// compresses with threads).
    nested: Option<Arc<Queue<Task>>>,
}

impl Call {
    fn new(n: usize, nested: Option<Arc<Queue<Task>>>) -> Self {
        Call {
            next: AtomicUsize::new(0),
            slots: (0..n).map(|_| UnsafeCell::new(0)).collect(),
            frame: UnsafeCell::new(true),
            nested,
        }
    }

    /// `drain` of `parallel_for`: claim jobs until none is left, job `j` writes `j + 1` to its slot.
    fn drain(&self) {
        self.frame
            .with(|alive| assert!(unsafe { *alive }, "job run after the caller returned"));
        loop {
            let j = self.next.fetch_add(1, Ordering::Relaxed);
            if j >= self.slots.len() {
                break;
            }
            if let Some(queue) = &self.nested {
                parallel_for(queue, 1, 1, None);
            }
            self.slots[j].with_mut(|p| unsafe { *p = j + 1 });
        }
        // the last look at the caller's frame before `finish_one`
        self.frame
            .with(|alive| assert!(unsafe { *alive }, "job run after the caller returned"));
    }
}

enum Task {
    Run {
        call: Arc<Call>,
        latch: Arc<Latch>,
    },
    /// Ends a helper (the real pool threads never end; loom needs every thread to finish).
    Stop,
}

/// A pool thread: run tasks until `Stop`.
fn helper(queue: Arc<Queue<Task>>) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        while let Task::Run { call, latch } = queue.pop() {
            call.drain();
            latch.finish_one();
            // `call` and `latch` are dropped here, possibly after the caller returned
        }
    })
}

/// One `parallel_for(helpers + 1, n, ..)` call; checks every job's write after `wait`.
fn parallel_for(queue: &Queue<Task>, helpers: usize, n: usize, nested: Option<Arc<Queue<Task>>>) {
    let call = Arc::new(Call::new(n, nested));
    let latch = Arc::new(Latch::new(helpers));
    queue.push((0..helpers).map(|_| Task::Run {
        call: call.clone(),
        latch: latch.clone(),
    }));
    call.drain();
    // every job is claimed: take back the tasks no thread has started
    latch.finish(
        queue.revoke(|t| matches!(t, Task::Run { latch: l, .. } if Arc::ptr_eq(l, &latch))),
    );
    latch.wait();
    for (j, slot) in call.slots.iter().enumerate() {
        assert_eq!(
            slot.with(|p| unsafe { *p }),
            j + 1,
            "job {j} not done or not visible"
        );
    }
    // the caller returns: its frame is gone (a race if a helper may still read it)
    call.frame.with_mut(|p| unsafe { *p = false });
}

/// A pool of `nhelpers` threads running `rounds` successive calls of `n` jobs each (each job
/// making a nested call if `nested`).
fn pool_model(nhelpers: usize, rounds: usize, n: usize, nested: bool) {
    let queue = Arc::new(Queue::default());
    let threads: Vec<_> = (0..nhelpers).map(|_| helper(queue.clone())).collect();
    for _ in 0..rounds {
        parallel_for(&queue, nhelpers, n, nested.then(|| queue.clone()));
    }
    queue.push((0..nhelpers).map(|_| Task::Stop));
    for t in threads {
        t.join().unwrap();
    }
}

/// Run `model` under every interleaving with at most `preemptions` preemptions
/// (`LOOM_MAX_PREEMPTIONS` in the environment wins, for a deeper search by hand), and print how
/// many interleavings were explored.
fn check(name: &str, preemptions: usize, model: impl Fn() + Sync + Send + 'static) {
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(preemptions);
    }
    let bound = b.preemption_bound;
    let t0 = std::time::Instant::now();
    let counted = runs.clone();
    b.check(move || {
        counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        model()
    });
    println!(
        "{name}: {} interleavings (preemption bound {bound:?}) in {:.1?}",
        runs.load(std::sync::atomic::Ordering::Relaxed),
        t0.elapsed()
    );
}

/// One helper, two jobs: either thread may run either job, or all of them.
#[test]
fn one_helper_one_call() {
    check("one_helper_one_call", 3, || pool_model(1, 1, 2, false));
}

/// Two helpers, three jobs.
#[test]
fn two_helpers_one_call() {
    check("two_helpers_one_call", 2, || pool_model(2, 1, 3, false));
}

/// Two successive calls on the same pool: the helper goes back to waiting (spinning, then
/// blocked) and must pick up the second call's task; no task of the first call may touch the
/// second call's frame or the first one's after it returned.
#[test]
fn one_helper_two_calls() {
    check("one_helper_two_calls", 3, || pool_model(1, 2, 2, false));
}

/// A `parallel_for` nested in each job of a `parallel_for`, on a pool of one thread: the
/// caller and the pool thread may both be inside a nested call at once, each having queued a
/// task that no thread is free to start. Without `Queue::revoke` both wait forever (loom
/// reports the deadlock); with it each takes its own task back.
#[test]
fn nested_calls_one_helper() {
    check("nested_calls_one_helper", 2, || pool_model(1, 1, 2, true));
}

/// The latch alone: the waiter may return (and drop its `Arc`) while the finishing thread is
/// still inside `finish_one` (taking the lock to notify); the latch must stay alive until both
/// are done, and the waiter must see the finisher's write.
#[test]
fn latch_outlives_returning_waiter() {
    check("latch_outlives_returning_waiter", 3, || {
        let latch = Arc::new(Latch::new(1));
        let data = Arc::new(UnsafeCell::new(0usize));
        let t = {
            let (latch, data) = (latch.clone(), data.clone());
            thread::spawn(move || {
                data.with_mut(|p| unsafe { *p = 7 });
                latch.finish_one();
            })
        };
        latch.wait();
        assert_eq!(data.with(|p| unsafe { *p }), 7);
        drop(latch);
        t.join().unwrap();
    });
}
