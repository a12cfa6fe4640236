//! The stored offsets chunk of a frame, whole in memory or fetched a block at a time.
//!
//! On a back-end where every read is a round trip ([`super::io::Io::ranged`]: an object store,
//! an HTTP server), a large frame's index is not downloaded at open: the chunk's header, its
//! block starts and whatever precedes its first block (a dictionary) are read, then the
//! compressed bytes of a block when an entry in it is first asked for. The bytes not fetched
//! stay zero and are never decoded: a piece is only decoded once the blocks under it are here.

use crate::chunk::header::Header;
use crate::error::{Error, Result};

/// Reads bytes of the offsets chunk (`at`: a position in the chunk).
pub(super) type ReadFn = Box<dyn Fn(u64, &mut [u8]) -> Result<()> + Send + Sync>;

/// Offsets chunks of at most this many compressed bytes are read whole even on a ranged
/// back-end (a few of its reads).
pub(super) const FETCH_MIN: usize = 256 << 10;

/// The bytes of an offsets chunk.
pub(super) struct Coff {
    /// `cbytes` long: all of the chunk, or the parts `lazy` says were fetched.
    bytes: Vec<u8>,
    lazy: Option<Lazy>,
}

struct Lazy {
    read: ReadFn,
    blocksize: usize,
    /// The compressed bytes of each block (its streams), `start..end` in the chunk.
    spans: Vec<(usize, usize)>,
    have: Vec<bool>,
}

fn bad(msg: &str) -> Error {
    crate::trace_error!("{}", msg);
    Error::InvalidHeader
}

impl Coff {
    /// A chunk read whole.
    pub(super) fn whole(bytes: Vec<u8>) -> Coff {
        Coff { bytes, lazy: None }
    }

    /// The offsets chunk of `cbytes` bytes whose first bytes are `head` (at least the 32 of an
    /// extended header), its blocks left to fetch through `read` when it is a compressed chunk
    /// of more than [`FETCH_MIN`] bytes with a plain layout (else it is read whole now).
    pub(super) fn fetched(cbytes: usize, head: &[u8], read: ReadFn) -> Result<Coff> {
        let whole = |read: ReadFn| -> Result<Coff> {
            let mut bytes = crate::error::zeroed_vec(cbytes)?;
            read(0, &mut bytes)?;
            Ok(Coff::whole(bytes))
        };
        let h = match Header::parse(head) {
            Ok(h) => h,
            Err(_) => return whole(read),
        };
        let plain = h.extended
            && h.special().is_none()
            && !h.memcpyed()
            && !h.is_vlblocks()
            && !h.is_lazy()
            && h.blocksize > 0
            && h.cbytes as usize == cbytes;
        if cbytes <= FETCH_MIN || !plain {
            return whole(read);
        }
        let hl = h.header_len();
        let nblocks = h.nblocks();
        let table_end = nblocks
            .checked_mul(4)
            .and_then(|n| n.checked_add(hl))
            .filter(|&e| e < cbytes)
            .ok_or_else(|| bad("The block starts of the offsets chunk exceed it"))?;
        let mut bytes = crate::error::zeroed_vec(cbytes)?;
        read(0, &mut bytes[..table_end])?;
        let starts: Vec<usize> = bytes[hl..table_end]
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .collect();
        let first = starts.iter().copied().min().unwrap_or(cbytes);
        if first < table_end || starts.iter().any(|&s| s >= cbytes) {
            return Err(bad("Invalid block start in the offsets chunk"));
        }
        // what precedes the first block (a dictionary) is read now
        if first > table_end {
            read(table_end as u64, &mut bytes[table_end..first])?;
        }
        // the blocks may be stored in any order: each ends where the next one starts
        let mut sorted = starts.clone();
        sorted.sort_unstable();
        sorted.dedup();
        let spans = starts
            .iter()
            .map(|&s| {
                let k = sorted.partition_point(|&x| x <= s);
                (s, sorted.get(k).copied().unwrap_or(cbytes))
            })
            .collect();
        Ok(Coff {
            bytes,
            lazy: Some(Lazy {
                read,
                blocksize: h.blocksize as usize,
                spans,
                have: vec![false; nblocks],
            }),
        })
    }

    /// Whether blocks are fetched when asked for.
    pub(super) fn is_fetched(&self) -> bool {
        self.lazy.is_some()
    }

    /// The chunk's bytes (only the parts [`Coff::ensure`] made sure of are meaningful).
    pub(super) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Fetch what decoding the bytes `start..start + len` of the offsets needs.
    pub(super) fn ensure(&mut self, start: usize, len: usize) -> Result<()> {
        let Some(lazy) = self.lazy.as_mut() else {
            return Ok(());
        };
        if len == 0 {
            return Ok(());
        }
        let b0 = start / lazy.blocksize;
        let b1 = ((start + len - 1) / lazy.blocksize).min(lazy.spans.len().saturating_sub(1));
        // consecutive missing blocks stored one after another are read in one go
        let mut b = b0;
        while b <= b1 {
            if lazy.have[b] {
                b += 1;
                continue;
            }
            let (s, mut e) = lazy.spans[b];
            let mut last = b;
            while last < b1 && !lazy.have[last + 1] && lazy.spans[last + 1].0 == e {
                last += 1;
                e = lazy.spans[last].1;
            }
            (lazy.read)(s as u64, &mut self.bytes[s..e])?;
            for h in &mut lazy.have[b..=last] {
                *h = true;
            }
            b = last + 1;
        }
        Ok(())
    }

    /// Fetch all the chunk (for a change, or a decoding of the whole index).
    pub(super) fn ensure_all(&mut self) -> Result<()> {
        if let Some(lazy) = self.lazy.take() {
            let from = lazy
                .spans
                .iter()
                .map(|s| s.0)
                .min()
                .unwrap_or(self.bytes.len());
            if let Err(e) = (lazy.read)(from as u64, &mut self.bytes[from..]) {
                self.lazy = Some(lazy);
                return Err(e);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::index::{self, OFFSET_SIZE};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn reader(chunk: Arc<Vec<u8>>, count: Arc<AtomicUsize>, bytes: Arc<AtomicUsize>) -> ReadFn {
        Box::new(move |at, buf| {
            count.fetch_add(1, Ordering::Relaxed);
            bytes.fetch_add(buf.len(), Ordering::Relaxed);
            let at = at as usize;
            buf.copy_from_slice(chunk.get(at..at + buf.len()).ok_or(Error::FileRead)?);
            Ok(())
        })
    }

    #[test]
    fn blocks_are_fetched_when_their_entries_are_read() {
        // chunk sizes of 40 to 439 bytes: offsets that compress to about a third
        let (mut x, mut o) = (5u64, 0i64);
        let want: Vec<i64> = (0..400_000)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                o += 40 + ((x >> 33) % 400) as i64;
                o
            })
            .collect();
        let c = Arc::new(index::encode(&want).unwrap());
        assert!(c.len() > FETCH_MIN, "{}", c.len());
        let (count, bytes) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let mut f = Coff::fetched(
            c.len(),
            &c[..32],
            reader(c.clone(), count.clone(), bytes.clone()),
        )
        .unwrap();
        assert!(f.is_fetched());
        let opened = bytes.load(Ordering::Relaxed);
        assert!(opened < 2000, "{opened}");
        // entries 200 000..200 010: one block
        let (at, n) = (200_000 * OFFSET_SIZE, 10 * OFFSET_SIZE);
        f.ensure(at, n).unwrap();
        assert_eq!(count.load(Ordering::Relaxed), 2);
        let fetched = bytes.load(Ordering::Relaxed) - opened;
        assert!(fetched < 20_000, "{fetched}");
        let mut buf = vec![0u8; n];
        let mut got = Vec::new();
        index::decode_range(f.bytes(), at, &mut buf, &mut got).unwrap();
        assert_eq!(got, want[200_000..200_010]);
        // again: nothing fetched
        f.ensure(at, n).unwrap();
        assert_eq!(count.load(Ordering::Relaxed), 2);
        // three blocks stored one after another: one read
        f.ensure(0, 3 * 16384).unwrap();
        assert_eq!(count.load(Ordering::Relaxed), 3);
        f.ensure_all().unwrap();
        assert!(!f.is_fetched());
        assert_eq!(f.bytes(), &c[..]);
        assert_eq!(index::decode(f.bytes(), want.len() as i64).unwrap(), want);

        // small, or not a plain compressed chunk: read whole
        let small = Arc::new(index::encode(&want[..1000]).unwrap());
        let f = Coff::fetched(
            small.len(),
            &small[..32],
            reader(small.clone(), count.clone(), bytes.clone()),
        )
        .unwrap();
        assert!(!f.is_fetched());
        assert_eq!(f.bytes(), &small[..]);
        let run = Arc::new(index::encode_repeated(7, 1 << 20).unwrap());
        let f = Coff::fetched(run.len(), &run[..32], reader(run.clone(), count, bytes)).unwrap();
        assert!(!f.is_fetched());
    }

    #[test]
    fn damaged_block_starts_are_refused() {
        let want: Vec<i64> = (0..400_000).map(|i| i * 977 % 1_000_003).collect();
        let good = index::encode(&want).unwrap();
        assert!(good.len() > FETCH_MIN);
        let nil = || Arc::new(AtomicUsize::new(0));
        for (at, v) in [(32usize, u32::MAX), (36, 40), (40, good.len() as u32)] {
            let mut c = good.clone();
            c[at..at + 4].copy_from_slice(&v.to_le_bytes());
            let c = Arc::new(c);
            let r = Coff::fetched(c.len(), &c[..32], reader(c.clone(), nil(), nil()));
            assert_eq!(r.err(), Some(Error::InvalidHeader), "start {v} at {at}");
        }
        // a read failure is an error
        let c = Arc::new(good);
        let fail: ReadFn = Box::new(|_, _| Err(Error::FileRead));
        assert_eq!(
            Coff::fetched(c.len(), &c[..32], fail).err(),
            Some(Error::FileRead)
        );
    }
}
