//! Helpers shared by the fuzz targets: an in-memory I/O back-end for sparse frames and the
//! checks run on every decodable chunk.

pub mod container;
pub mod targets;

use b2rs::chunk::{self, Header, Span};
use b2rs::frame::{Frame, Io, IoHandle, OpenMode};
use b2rs::schunk::Schunk;
use b2rs::{DParams, Error, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Largest uncompressed size the targets decode (a header may claim up to 2 GiB; bigger inputs
/// also make the runs slow under AddressSanitizer).
pub const MAX_NBYTES: usize = 1 << 20;

/// Most chunks of a frame or file the targets decode.
pub const MAX_CHUNKS: i64 = 64;

/// Most chunks of a frame whose whole index the targets read (and whose frame they copy): a
/// header of a few hundred bytes can claim 2^28 chunks, which a frame opens lazily.
pub const MAX_INDEXED_CHUNKS: i64 = 1 << 16;

/// Decompression parameters of the targets: one thread.
pub fn dparams() -> DParams {
    DParams {
        nthreads: 1,
        ..Default::default()
    }
}

/// A small deterministic hash of the input, to derive ranges and masks from it.
pub fn hash(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// Decode the chunk `src` every way the core offers: whole (with and without a block mask,
/// into a too-small buffer), getitem of ranges derived from `seed`, and the VL-block
/// decoders. Where the whole decode and a getitem both succeed, they must agree.
pub fn check_chunk(dp: &DParams, src: &[u8], seed: u64) {
    let Ok(h) = Header::parse(src) else {
        // still exercise the entry points on a bad header
        let _ = chunk::decompress(dp, src, &mut [0u8; 64], None);
        let _ = chunk::getitem(dp, src, Span::Bytes { start: 0, len: 8 }, &mut [0u8; 8]);
        return;
    };
    if h.is_vlblocks() {
        if let Ok(blocks) = chunk::vldecompress(dp, src) {
            let total: usize = blocks.iter().map(Vec::len).sum();
            assert!(total <= i32::MAX as usize);
        }
        let nb = (h.blocksize.max(0) as usize).min(4);
        for j in 0..=nb {
            let _ = chunk::vldecompress_block(dp, src, j);
        }
        let _ = chunk::getitem(dp, src, Span::Bytes { start: 0, len: 1 }, &mut [0u8; 1]);
        return;
    }
    let nbytes = h.nbytes.max(0) as usize;
    if nbytes > MAX_NBYTES {
        return;
    }
    let mut full = vec![0u8; nbytes];
    let whole = chunk::decompress(dp, src, &mut full, None);
    if let Ok(n) = whole {
        assert_eq!(n, nbytes, "decompress returned a size other than nbytes");
    }
    // too small a destination must be refused
    if nbytes > 0 {
        let mut small = vec![0u8; nbytes - 1];
        assert!(chunk::decompress(dp, src, &mut small, None).is_err());
    }
    // a block mask (one entry per block when the header is sane)
    let nblocks = if h.blocksize > 0 {
        nbytes.div_ceil(h.blocksize as usize).min(1 << 16)
    } else {
        1
    };
    let mask: Vec<bool> = (0..nblocks).map(|j| (seed >> (j % 64)) & 1 == 1).collect();
    let mut masked = vec![0u8; nbytes];
    let _ = chunk::decompress(dp, src, &mut masked, Some(&mask));
    let _ = chunk::decompress(dp, src, &mut masked, Some(&mask[..nblocks / 2]));

    // getitem: three ranges from the seed, in the three span kinds
    let ts = (h.typesize.max(1)) as u64;
    let n = nbytes as u64;
    for k in 0..3u64 {
        let s = seed.rotate_left(17 * k as u32);
        let start = if n == 0 { 0 } else { s % (n + 1) };
        let len = (s >> 32) % (n - start + 2); // may run one past the end
        let mut out = vec![0u8; len as usize + 1];
        let r = match k {
            0 => chunk::getitem(
                dp,
                src,
                Span::Bytes {
                    start: start as usize,
                    len: len as usize,
                },
                &mut out,
            ),
            1 => chunk::getitem(
                dp,
                src,
                Span::Items {
                    start: (start / ts) as i64,
                    nitems: (len / ts) as i64,
                },
                &mut out,
            ),
            _ => chunk::getitem(
                dp,
                src,
                Span::AlignedBytes {
                    start: (start / ts * ts) as i64,
                    len: (len / ts * ts) as i64,
                },
                &mut out,
            ),
        };
        if let (Ok(got), Ok(_)) = (r, &whole) {
            let (a, b) = match k {
                0 => (start, len),
                1 => (start / ts * ts, len / ts * ts),
                _ => (start / ts * ts, len / ts * ts),
            };
            assert_eq!(got as u64, b, "getitem returned another length");
            assert_eq!(
                &out[..got],
                &full[a as usize..(a + b) as usize],
                "getitem disagrees with decompress"
            );
        }
    }
}

/// Decode every chunk (up to [`MAX_CHUNKS`]) of `frame`, then the same through a super-chunk
/// (chunk decode, vlmetalayers, a slice).
pub fn check_frame(frame: Frame, seed: u64) {
    let dp = dparams();
    if frame.nchunks() <= MAX_INDEXED_CHUNKS {
        let _ = frame.offsets();
        let _ = frame.to_bytes().map(|b| b.len());
    }
    // the last chunk's offset (a lazily read index decodes its last piece)
    let _ = frame.chunk_offset(frame.nchunks() - 1);
    for m in frame.metalayers() {
        let _ = m.content.len();
    }
    // decode at most MAX_NBYTES in all (big frames of many chunks make slow runs)
    let nchunks = frame.nchunks().min(MAX_CHUNKS);
    let mut budget = MAX_NBYTES as i64;
    for n in 0..nchunks {
        if let Ok(c) = frame.get_chunk(n) {
            budget -= Header::sizes(&c).map_or(0, |s| s.0.max(0) as i64);
            if budget < 0 {
                break;
            }
            check_chunk(&dp, &c, seed ^ n as u64);
        }
    }
    let _ = frame.get_chunk(-1);
    let _ = frame.get_chunk(frame.nchunks());

    let mut sc = Schunk::from_frame(frame, dp.clone());
    let names: Vec<String> = sc.vlmetalayers().iter().map(|m| m.name.clone()).collect();
    for name in &names {
        let _ = sc.vlmeta_get(name);
    }
    let names: Vec<String> = sc.metalayers().iter().map(|m| m.name.clone()).collect();
    for name in &names {
        let _ = sc.meta_exists(name);
    }
    let chunksize = sc.chunksize().max(0) as usize;
    if chunksize <= MAX_NBYTES {
        let mut buf = vec![0u8; chunksize];
        let n_max = (MAX_NBYTES / chunksize.max(1)).clamp(1, MAX_CHUNKS as usize) as i64;
        for n in 0..sc.nchunks().min(n_max) {
            let _ = sc.decompress_chunk(n, &mut buf);
            if sc.is_vlblocks() {
                let _ = sc.get_vlblock(n, 0);
            }
        }
    }
    // a slice across two chunks anywhere, in items; with chunks of varying sizes, placing a
    // slice walks every chunk before it (no index of starts exists), so in a frame of more
    // than MAX_INDEXED_CHUNKS chunks the slice starts in the first MAX_NBYTES bytes
    let ts = sc.typesize().max(1) as i64;
    let total = sc.nbytes() / ts;
    let reach = if sc.chunksize() <= 0 && sc.nchunks() > MAX_INDEXED_CHUNKS {
        total.min(MAX_NBYTES as i64 / ts)
    } else {
        total
    };
    let start = (seed % (reach.max(0) as u64 + 1)) as i64;
    let stop = (start + (chunksize as i64 / ts) + 1).min(total);
    if stop >= start && ((stop - start) * ts) as usize <= MAX_NBYTES {
        let mut buf = vec![0u8; ((stop - start) * ts) as usize];
        let _ = sc.get_slice(start, stop, &mut buf);
    }
}

/// An in-memory file system for sparse frames (paths to contents).
#[derive(Default)]
pub struct MemIo {
    files: Mutex<HashMap<PathBuf, Vec<u8>>>,
}

impl MemIo {
    /// The files of a sparse frame in `dir`: `files[0]` is the index, `files[k + 1]` chunk `k`.
    pub fn sframe(dir: &Path, files: &[&[u8]]) -> MemIo {
        let mut m = HashMap::new();
        for (k, f) in files.iter().enumerate() {
            let name = if k == 0 {
                "chunks.b2frame".to_string()
            } else {
                format!("{:08X}.chunk", k - 1)
            };
            m.insert(dir.join(name), f.to_vec());
        }
        MemIo {
            files: Mutex::new(m),
        }
    }
}

struct MemHandle<'a> {
    io: &'a MemIo,
    path: PathBuf,
}

impl Io for MemIo {
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn IoHandle + '_>> {
        let mut files = self.files.lock().unwrap();
        match mode {
            OpenMode::Read | OpenMode::ReadWrite => {
                if !files.contains_key(path) {
                    return Err(Error::FileOpen);
                }
            }
            OpenMode::Create => {
                files.insert(path.to_path_buf(), Vec::new());
            }
            OpenMode::Append => {
                files.entry(path.to_path_buf()).or_default();
            }
        }
        Ok(Box::new(MemHandle {
            io: self,
            path: path.to_path_buf(),
        }))
    }
}

impl IoHandle for MemHandle<'_> {
    fn size(&mut self) -> Result<u64> {
        let files = self.io.files.lock().unwrap();
        Ok(files.get(&self.path).map_or(0, |f| f.len() as u64))
    }

    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        let files = self.io.files.lock().unwrap();
        let f = files.get(&self.path).ok_or(Error::FileRead)?;
        let pos = usize::try_from(pos).map_err(|_| Error::FileRead)?;
        let end = pos.checked_add(buf.len()).ok_or(Error::FileRead)?;
        buf.copy_from_slice(f.get(pos..end).ok_or(Error::FileRead)?);
        Ok(())
    }

    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        let mut files = self.io.files.lock().unwrap();
        let f = files.get_mut(&self.path).ok_or(Error::FileWrite)?;
        let pos = usize::try_from(pos).map_err(|_| Error::FileWrite)?;
        let end = pos.checked_add(data.len()).ok_or(Error::FileWrite)?;
        if end > 1 << 26 {
            return Err(Error::FileWrite);
        }
        if f.len() < end {
            f.resize(end, 0);
        }
        f[pos..end].copy_from_slice(data);
        Ok(())
    }

    fn truncate(&mut self, size: u64) -> Result<()> {
        let mut files = self.io.files.lock().unwrap();
        let f = files.get_mut(&self.path).ok_or(Error::FileTruncate)?;
        if size > 1 << 26 {
            return Err(Error::FileTruncate);
        }
        f.resize(size as usize, 0);
        Ok(())
    }
}
