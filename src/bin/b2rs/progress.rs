//! A progress bar on stderr, drawn only when stderr is a terminal, for work that lasts more than
//! about a second.

use std::io::{IsTerminal, Read, Write};
use std::time::{Duration, Instant};

const DELAY: Duration = Duration::from_millis(1000);
const EVERY: Duration = Duration::from_millis(100);

pub struct Progress {
    label: String,
    total: u64,
    done: u64,
    start: Instant,
    last: Option<Instant>,
    enabled: bool,
}

impl Progress {
    pub fn new(label: &str, total: u64, quiet: bool) -> Progress {
        Progress {
            label: label.to_string(),
            total,
            done: 0,
            start: Instant::now(),
            last: None,
            enabled: !quiet && std::io::stderr().is_terminal(),
        }
    }

    pub fn add(&mut self, n: u64) {
        self.done += n;
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        if now.duration_since(self.start) < DELAY {
            return;
        }
        if let Some(last) = self.last {
            if now.duration_since(last) < EVERY {
                return;
            }
        }
        self.last = Some(now);
        self.draw();
    }

    fn draw(&self) {
        const WIDTH: usize = 30;
        let frac = if self.total > 0 {
            (self.done as f64 / self.total as f64).min(1.0)
        } else {
            0.0
        };
        let filled = (frac * WIDTH as f64) as usize;
        let secs = self.start.elapsed().as_secs_f64().max(1e-9);
        let mib = self.done as f64 / (1 << 20) as f64;
        let line = format!(
            "\r{} [{}{}] {:5.1}% {:.1} MiB {:.1} MiB/s ",
            self.label,
            "#".repeat(filled),
            "-".repeat(WIDTH - filled),
            frac * 100.0,
            mib,
            mib / secs
        );
        let mut e = std::io::stderr().lock();
        let _ = e.write_all(line.as_bytes());
        let _ = e.flush();
    }

    /// Erase the bar (if one was drawn).
    pub fn finish(&mut self) {
        if self.last.is_some() {
            self.draw();
            let _ = std::io::stderr().write_all(b"\n");
            self.last = None;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if self.last.is_some() {
            let _ = std::io::stderr().write_all(b"\n");
        }
    }
}

/// A reader that reports the bytes read through it.
pub struct Counted<R> {
    pub inner: R,
    pub progress: Progress,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.add(n as u64);
        Ok(n)
    }
}
