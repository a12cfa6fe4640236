//! Runs of chunks inserted or deleted at once (what B2ND shape changes need): one index update
//! for a frame instead of one per chunk.

use super::checksum::{chunk_checksum, Change};
use super::{check_chunk, Op, Schunk, Store, Stored};
use crate::error::{Error, Result};
use crate::frame::LockMode;
use std::sync::Arc;

impl Schunk {
    /// Insert `count` copies of `chunk` at position `n` (as `count` calls of
    /// [`insert_chunk`](Self::insert_chunk) at `n`); returns the number of chunks. Frames
    /// store a run of special chunks as one index change; in memory the copies share one
    /// buffer.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::chunk::{header::Special, special::special_chunk};
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let cparams = CParams { typesize: 4, ..CParams::default() };
    /// let mut sc = Schunk::new(cparams.clone(), DParams::default());
    /// sc.append_buffer(&[1u8; 4000]).unwrap();
    /// let mut zeros = [0u8; 32];
    /// special_chunk(&cparams, Special::Zero, 4000, None, &mut zeros).unwrap();
    /// assert_eq!(sc.insert_chunk_run(0, 3, &zeros).unwrap(), 4);
    /// let mut out = vec![9u8; 4000];
    /// sc.decompress_chunk(2, &mut out).unwrap();
    /// assert!(out.iter().all(|&b| b == 0));
    /// sc.decompress_chunk(3, &mut out).unwrap();
    /// assert_eq!(out[0], 1);
    /// assert_eq!(sc.delete_chunk_run(0, 3).unwrap(), 1);
    /// ```
    pub fn insert_chunk_run(&mut self, n: i64, count: i64, chunk: &[u8]) -> Result<i64> {
        if n < 0 || n > self.nchunks() || count < 0 {
            crate::trace_error!(
                "Cannot insert {} chunks at {} in a super-chunk of {}",
                count,
                n,
                self.nchunks()
            );
            return Err(Error::InvalidParam);
        }
        if count == 0 {
            return Ok(self.nchunks());
        }
        self.locked(LockMode::Exclusive, |s| {
            if !s.has_checksums() {
                return s.insert_run_unlocked(n, count, chunk);
            }
            let change = Change::InsertRun(n as usize, count as usize, chunk_checksum(chunk));
            s.with_checksums(change, |s| s.insert_run_unlocked(n, count, chunk))
        })
    }

    fn insert_run_unlocked(&mut self, n: i64, count: i64, chunk: &[u8]) -> Result<i64> {
        let h = check_chunk(chunk)?;
        let bytes = &chunk[..h.cbytes as usize];
        if let Store::Frame(f) = &mut self.store {
            let r = f.insert_chunk_run(n, count, bytes);
            self.current_nchunk = n + count - 1;
            self.sync_counters();
            return r;
        }
        // the first as any insertion (the chunk-size rules), the others alike after it
        self.place_unlocked(bytes.to_vec(), Op::Insert(n as usize))?;
        let shared: Arc<[u8]> = Arc::from(bytes);
        let Store::Memory(v) = &mut self.store else {
            unreachable!("frames are handled above");
        };
        let more = (count - 1) as usize;
        v.try_reserve(more).map_err(|_| Error::MemoryAlloc)?;
        let at = n as usize + 1;
        v.splice(
            at..at,
            (0..more).map(|_| Stored::new(Box::new(shared.clone()), h.nbytes, h.cbytes)),
        );
        self.nbytes += h.nbytes as i64 * more as i64;
        self.cbytes += h.cbytes as i64 * more as i64;
        self.current_nchunk = n + count - 1;
        Ok(self.nchunks())
    }

    /// Delete the `count` chunks from `n` (as `count` calls of
    /// [`delete_chunk`](Self::delete_chunk) at `n`); returns the number of chunks.
    ///
    /// # Examples
    ///
    /// See [`insert_chunk_run`](Self::insert_chunk_run).
    pub fn delete_chunk_run(&mut self, n: i64, count: i64) -> Result<i64> {
        if count < 0 || n < 0 || n.saturating_add(count) > self.nchunks() {
            crate::trace_error!(
                "Cannot delete {} chunks from {} in a super-chunk of {}",
                count,
                n,
                self.nchunks()
            );
            return Err(Error::InvalidParam);
        }
        if count == 0 {
            return Ok(self.nchunks());
        }
        self.locked(LockMode::Exclusive, |s| {
            let change = Change::DeleteRun(n as usize, count as usize);
            s.with_checksums(change, |s| s.delete_run_unlocked(n, count))
        })
    }

    fn delete_run_unlocked(&mut self, n: i64, count: i64) -> Result<i64> {
        let (a, b) = (n as usize, (n + count) as usize);
        match &mut self.store {
            Store::Memory(v) => {
                for old in v.drain(a..b) {
                    self.nbytes -= old.nbytes as i64;
                    self.cbytes -= old.cbytes as i64;
                }
            }
            Store::Frame(f) => {
                let r = f.delete_chunk_run(n, count);
                self.sync_counters();
                r?;
            }
        }
        self.current_nchunk = n;
        if self.nchunks() == 0 {
            self.flags2 = 0;
        }
        Ok(self.nchunks())
    }
}
