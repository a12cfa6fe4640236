//! A progress bar on stderr (indicatif), drawn only when stderr is a terminal and the work lasts
//! more than about a second.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Read};
use std::time::{Duration, Instant};

/// How long work runs before a bar shows.
const DELAY: Duration = Duration::from_millis(1000);

/// The progress of one command over `total` bytes.
pub(crate) struct Progress {
    bar: ProgressBar,
    start: Instant,
    /// Whether a bar may be drawn (not `--quiet`, stderr a terminal).
    enabled: bool,
    shown: bool,
}

impl Progress {
    pub(crate) fn new(label: &str, total: u64, quiet: bool) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template(
                "{msg} [{bar:30}] {percent:>3}% {binary_bytes} {binary_bytes_per_sec} eta {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("#>-"),
        );
        bar.set_message(label.to_string());
        Progress {
            bar,
            start: Instant::now(),
            enabled: !quiet && std::io::stderr().is_terminal(),
            shown: false,
        }
    }

    pub(crate) fn add(&mut self, n: u64) {
        self.bar.inc(n);
        if self.enabled && !self.shown && self.start.elapsed() >= DELAY {
            self.shown = true;
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    /// Leave the finished bar (if one was drawn).
    pub(crate) fn finish(&mut self) {
        if self.shown {
            self.bar.finish();
        }
    }
}

/// A reader that reports the bytes read through it.
pub(crate) struct Counted<R> {
    pub(crate) inner: R,
    pub(crate) progress: Progress,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.add(n as u64);
        Ok(n)
    }
}
