//! A process killed during an append to a frame on disk: simulated exhaustively with an I/O
//! back-end that stops writing after `k` writes (as if the process died there), for every
//! `k`. The frame must then open with every chunk appended before, and with the new chunk
//! too once the append returned. Contiguous files need the new chunk to be at least as long
//! as the old offsets chunk and trailer (the header, written after them, commits the append);
//! sparse frames replace their index file with a rename.

use b2rs::frame::{Frame, FrameParams, Io, IoHandle, Location, OpenMode, StdIo};
use b2rs::{CParams, Error, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// [`StdIo`] that performs only the first `budget` writes (and truncations).
struct CrashIo {
    budget: AtomicI64,
}

struct CrashHandle<'a> {
    inner: Box<dyn IoHandle + 'a>,
    io: &'a CrashIo,
}

impl CrashIo {
    fn spend(&self) -> Result<()> {
        if self.budget.fetch_sub(1, Ordering::SeqCst) <= 0 {
            return Err(Error::FileWrite);
        }
        Ok(())
    }
}

impl Io for CrashIo {
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn IoHandle + '_>> {
        if mode == OpenMode::Create {
            self.spend()?;
        }
        Ok(Box::new(CrashHandle {
            inner: StdIo.open(path, mode)?,
            io: self,
        }))
    }

    fn replace_file(&self, from: &Path, to: &Path) -> Result<bool> {
        self.spend()?;
        StdIo.replace_file(from, to)
    }
}

impl IoHandle for CrashHandle<'_> {
    fn size(&mut self) -> Result<u64> {
        self.inner.size()
    }
    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        self.inner.read_at(pos, buf)
    }
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        self.io.spend()?;
        self.inner.write_at(pos, data)
    }
    fn truncate(&mut self, size: u64) -> Result<()> {
        self.io.spend()?;
        self.inner.truncate(size)
    }
}

fn data(seed: u32) -> Vec<u8> {
    // 16 varying bits per 32-bit item: compresses about 2x.
    (0..20000u32)
        .flat_map(|i| {
            let x = (seed.wrapping_mul(2654435761) ^ i.wrapping_mul(40503)).rotate_left(7);
            (x & 0xFFFF).to_le_bytes()
        })
        .collect()
}

fn chunk(seed: u32) -> Vec<u8> {
    let p = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let src = data(seed);
    let mut out = vec![0u8; src.len() + 64];
    let n = b2rs::chunk::compress(&p, &src, &mut out).unwrap();
    out.truncate(n);
    out
}

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("b2rs-crash-{}-{name}", std::process::id()))
}

fn location(path: &Path, sparse: bool) -> Location {
    if sparse {
        Location::Dir(path.to_path_buf())
    } else {
        Location::File {
            path: path.to_path_buf(),
            offset: 0,
        }
    }
}

fn check(path: &Path, sparse: bool, at_least: i64, complete: bool) {
    let f = Frame::open(location(path, sparse), Arc::new(StdIo))
        .unwrap_or_else(|e| panic!("the frame does not open after the crash: {e}"));
    assert!(f.nchunks() >= at_least);
    assert!(f.nchunks() <= at_least + 1);
    if complete {
        assert_eq!(f.nchunks(), at_least + 1);
    }
    for i in 0..at_least + complete as i64 {
        assert_eq!(&*f.get_chunk(i).unwrap(), &chunk(i as u32)[..], "chunk {i}");
    }
}

fn crash_during_append(sparse: bool) {
    let path = tmp(if sparse { "s.b2frame" } else { "c.b2frame" });
    let _ = std::fs::remove_dir_all(&path);
    let _ = std::fs::remove_file(&path);
    let mut done = false;
    let mut k = 0;
    while !done {
        assert!(k < 50, "the append never completes");
        {
            let mut f = Frame::create(
                location(&path, sparse),
                &FrameParams::default(),
                Arc::new(StdIo),
            )
            .unwrap();
            for i in 0..5 {
                f.append_chunk(&chunk(i)).unwrap();
            }
        }
        let io = Arc::new(CrashIo {
            budget: AtomicI64::new(k),
        });
        let mut f = Frame::open(location(&path, sparse), io).unwrap();
        let r = f.append_chunk(&chunk(5));
        drop(f);
        done = r.is_ok();
        check(&path, sparse, 5, done);
        k += 1;
    }
    let _ = std::fs::remove_dir_all(&path);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn crash_during_append_cframe() {
    crash_during_append(false);
}

#[test]
fn crash_during_append_sframe() {
    crash_during_append(true);
}
