//! Opt-in per-chunk checksums (b2rs only; issue 45): a CRC-32C per chunk kept in the
//! variable-length metalayer [`CHECKSUMS_VLMETA`], which every Blosc2 library reads (and
//! copies) as any other vlmetalayer and otherwise ignores.
//!
//! # What a checksum covers
//!
//! The chunk as [`Schunk::get_chunk`] returns it, its first `cbytes` bytes (the header's
//! `cbytes`; all the bytes returned when the header cannot be read): header, block starts and
//! compressed blocks. Verifying decodes nothing, and a damaged index entry (an offset pointing
//! at other bytes) shows as well as damaged bytes. Chunks of zeros, NaNs or uninitialised
//! values (special chunks: a frame keeps no bytes for them but a mark in its index, and makes
//! up a 32-byte chunk from its own parameters when read) are covered by what they stand for:
//! the CRC-32C of the 6 bytes `[kind, typesize, nbytes as u32 LE]` (kind 1 zeros, 2 NaNs,
//! 4 uninitialised; typesize 0 but for NaNs, whose pattern depends on it).
//!
//! # The vlmetalayer
//!
//! Its content is a msgpack map (what python-blosc2's `schunk.vlmeta["b2rs_crc32c"]` gives
//! back as a `dict`) of two entries: `"version"`: 1, and `"crc32c"`: a bin of 4 bytes per chunk,
//! the CRC-32C of chunk `i` at bytes `4 i .. 4 i + 4`, little-endian. A list shorter than the
//! super-chunk leaves the last chunks unrecorded (another library appended them).
//!
//! # Upkeep
//!
//! Once the vlmetalayer exists (written by [`Schunk::enable_checksums`], or found in a frame
//! opened), every change of the chunks made by b2rs (append, insert, update, delete, runs,
//! reorder, special fill) rewrites it, in a frame together with the change's own index and
//! trailer write; this costs O(nchunks) bytes per change, as the frame's index does. Another
//! library changing the chunks does not update it: the chunks it wrote then show as damaged.

use super::{Op, Schunk, Store};
use crate::chunk::header::{Header, Special};
use crate::crc32c::crc32c;
use crate::error::{Error, Result};
use crate::frame::LockMode;
use crate::params::{CParams, DParams};

/// The name of the variable-length metalayer holding the chunk checksums.
pub const CHECKSUMS_VLMETA: &str = "b2rs_crc32c";

/// The version of the vlmetalayer's format written (and the only one read).
const FORMAT_VERSION: u64 = 1;

/// What checking a chunk against its recorded checksum found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkCheck {
    /// The chunk matches its checksum.
    Intact,
    /// The chunk does not match its checksum: damaged (or changed by a library that does not
    /// keep the checksums).
    Damaged {
        /// The checksum recorded.
        recorded: u32,
        /// The checksum of the chunk as it is.
        actual: u32,
    },
    /// No checksum is recorded for the chunk.
    Unrecorded,
}

/// The CRC-32C of a chunk as the checksums cover it (see the module documentation): its
/// stored bytes, or for a special chunk of zeros, NaNs or uninitialised values, what it
/// stands for.
///
/// # Examples
///
/// ```
/// use b2rs::crc32c::crc32c;
/// use b2rs::schunk::chunk_checksum;
/// use b2rs::{chunk, CParams};
///
/// let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
/// let n = chunk::compress(&CParams::default(), &[7u8; 1000], &mut buf).unwrap();
/// assert_eq!(chunk_checksum(&buf[..n]), crc32c(&buf[..n]));
/// // bytes past the chunk's cbytes are not covered
/// assert_eq!(chunk_checksum(&buf[..n + 3]), crc32c(&buf[..n]));
/// ```
pub fn chunk_checksum(chunk: &[u8]) -> u32 {
    let Ok(h) = Header::parse(chunk) else {
        return crc32c(chunk);
    };
    let special = match h.special() {
        Some(Special::Zero) => Some((1u8, 0u8)),
        Some(Special::Nan) => Some((2, h.typesize)),
        Some(Special::Uninit) => Some((4, 0)),
        _ => None,
    };
    if let Some((kind, typesize)) = special {
        let mut b = [0u8; 6];
        b[0] = kind;
        b[1] = typesize;
        b[2..].copy_from_slice(&(h.nbytes as u32).to_le_bytes());
        return crc32c(&b);
    }
    let end = usize::try_from(h.cbytes).unwrap_or(usize::MAX);
    crc32c(chunk.get(..end).unwrap_or(chunk))
}

/// The checksums of a super-chunk's chunks, as its [`CHECKSUMS_VLMETA`] vlmetalayer records
/// them: entry `i` is chunk `i`'s [`chunk_checksum`].
///
/// # Examples
///
/// ```
/// use b2rs::schunk::{chunk_checksum, ChunkCheck, ChunkChecksums};
///
/// let chunk = [1u8, 2, 3];
/// let sums = ChunkChecksums::from_crcs(vec![chunk_checksum(&chunk)]);
/// assert_eq!(sums.check(0, &chunk), ChunkCheck::Intact);
/// assert!(matches!(sums.check(0, &[1, 2, 4]), ChunkCheck::Damaged { .. }));
/// assert_eq!(sums.check(1, &chunk), ChunkCheck::Unrecorded);
/// // the vlmetalayer's content (a msgpack map) and back
/// assert_eq!(ChunkChecksums::decode(&sums.encode()).unwrap(), sums);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkChecksums {
    crcs: Vec<u32>,
}

impl ChunkChecksums {
    /// Checksums from a list (entry `i` for chunk `i`).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::ChunkChecksums;
    ///
    /// assert_eq!(ChunkChecksums::from_crcs(vec![1, 2]).crcs(), [1, 2]);
    /// ```
    pub fn from_crcs(crcs: Vec<u32>) -> ChunkChecksums {
        ChunkChecksums { crcs }
    }

    /// The checksums (entry `i` for chunk `i`).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::ChunkChecksums;
    ///
    /// assert!(ChunkChecksums::default().crcs().is_empty());
    /// ```
    pub fn crcs(&self) -> &[u32] {
        &self.crcs
    }

    /// Check chunk `n`, given as its stored bytes (what [`Schunk::get_chunk`] returns), against
    /// its recorded checksum. Also what a tool reading a damaged frame chunk by chunk calls.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::{chunk_checksum, ChunkCheck, ChunkChecksums};
    ///
    /// let sums = ChunkChecksums::from_crcs(vec![chunk_checksum(b"abc")]);
    /// assert_eq!(sums.check(0, b"abc"), ChunkCheck::Intact);
    /// assert_eq!(sums.check(5, b"abc"), ChunkCheck::Unrecorded);
    /// ```
    pub fn check(&self, n: usize, chunk: &[u8]) -> ChunkCheck {
        let Some(&recorded) = self.crcs.get(n) else {
            return ChunkCheck::Unrecorded;
        };
        let actual = chunk_checksum(chunk);
        if actual == recorded {
            ChunkCheck::Intact
        } else {
            ChunkCheck::Damaged { recorded, actual }
        }
    }

    /// The vlmetalayer's (uncompressed) content: the msgpack map
    /// `{"version": 1, "crc32c": bin}`.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::ChunkChecksums;
    ///
    /// let content = ChunkChecksums::from_crcs(vec![0x0403_0201]).encode();
    /// assert_eq!(content[0], 0x82); // a map of two entries
    /// assert!(content.ends_with(&[0xc4, 4, 1, 2, 3, 4])); // bin 8 of 4 bytes
    /// ```
    pub fn encode(&self) -> Vec<u8> {
        let n = self.crcs.len() * 4;
        let mut out = Vec::with_capacity(n + 32);
        out.push(0x82);
        out.push(0xa0 | 7);
        out.extend_from_slice(b"version");
        out.push(FORMAT_VERSION as u8);
        out.push(0xa0 | 6);
        out.extend_from_slice(b"crc32c");
        if n < 1 << 8 {
            out.extend_from_slice(&[0xc4, n as u8]);
        } else if n < 1 << 16 {
            out.push(0xc5);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        } else {
            out.push(0xc6);
            out.extend_from_slice(&(n as u32).to_be_bytes());
        }
        for c in &self.crcs {
            out.extend_from_slice(&c.to_le_bytes());
        }
        out
    }

    /// Read the vlmetalayer's (uncompressed) content. Refuses other versions and anything
    /// but a map of `"version"` and `"crc32c"`.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::ChunkChecksums;
    ///
    /// let sums = ChunkChecksums::from_crcs(vec![7; 100]);
    /// assert_eq!(ChunkChecksums::decode(&sums.encode()).unwrap(), sums);
    /// assert!(ChunkChecksums::decode(b"\x81\xa7version\x02").is_err());
    /// ```
    pub fn decode(content: &[u8]) -> Result<ChunkChecksums> {
        decode_map(content).ok_or_else(|| {
            crate::trace_error!("The \"{}\" vlmetalayer cannot be read", CHECKSUMS_VLMETA);
            Error::Data
        })
    }

    /// Read the vlmetalayer as a frame stores it (a compressed chunk: the `content` of
    /// [`crate::frame::Frame::vlmetalayers`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::{ChunkChecksums, Schunk, CHECKSUMS_VLMETA};
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// sc.append_buffer(&[1u8; 100]).unwrap();
    /// sc.enable_checksums().unwrap();
    /// let frame = b2rs::frame::Frame::from_bytes(sc.to_cframe().unwrap()).unwrap();
    /// let layer = frame.vlmetalayers().iter().find(|m| m.name == CHECKSUMS_VLMETA).unwrap();
    /// let sums = ChunkChecksums::from_vlmetalayer(&layer.content).unwrap();
    /// assert_eq!(sums.crcs().len(), 1);
    /// ```
    pub fn from_vlmetalayer(stored: &[u8]) -> Result<ChunkChecksums> {
        let h = Header::parse(stored)?;
        let mut out = crate::error::zeroed_vec(h.data_len())?;
        let dp = DParams {
            nchunk: -1,
            ..DParams::default()
        };
        let n = crate::chunk::decompress(&dp, stored, &mut out, None)?;
        if n != out.len() {
            return Err(Error::Data);
        }
        ChunkChecksums::decode(&out)
    }

    /// The vlmetalayer's stored chunk for these checksums (the content of
    /// [`ChunkChecksums::encode`], stored uncompressed), for a frame written chunk by chunk.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::ChunkChecksums;
    ///
    /// let sums = ChunkChecksums::from_crcs(vec![7, 8, 9]);
    /// let stored = sums.to_vlmetalayer().unwrap();
    /// assert_eq!(ChunkChecksums::from_vlmetalayer(&stored).unwrap(), sums);
    /// ```
    pub fn to_vlmetalayer(&self) -> Result<Vec<u8>> {
        super::compress_chunk(&layer_cparams(), -1, &self.encode())
    }
}

/// Parse `{"version": 1, "crc32c": bin}` (keys in any order).
fn decode_map(b: &[u8]) -> Option<ChunkChecksums> {
    let mut r = Reader(b);
    let n = match r.byte()? {
        m @ 0x80..=0x8f => (m & 0x0f) as usize,
        _ => return None,
    };
    let (mut version, mut crcs) = (None, None);
    for _ in 0..n {
        let key = r.str()?;
        match key {
            b"version" => version = Some(r.uint()?),
            b"crc32c" => {
                let bytes = r.bin()?;
                if bytes.len() % 4 != 0 {
                    return None;
                }
                let v = bytes
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                crcs = Some(v);
            }
            _ => return None,
        }
    }
    if version? != FORMAT_VERSION || !r.0.is_empty() {
        return None;
    }
    Some(ChunkChecksums { crcs: crcs? })
}

/// A cursor over msgpack bytes (the few types the vlmetalayer holds).
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (a, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(a)
    }

    fn byte(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    fn be(&mut self, n: usize) -> Option<u64> {
        Some(self.take(n)?.iter().fold(0u64, |a, &b| a << 8 | b as u64))
    }

    fn str(&mut self) -> Option<&'a [u8]> {
        let n = match self.byte()? {
            m @ 0xa0..=0xbf => (m & 0x1f) as usize,
            0xd9 => self.be(1)? as usize,
            _ => return None,
        };
        self.take(n)
    }

    fn uint(&mut self) -> Option<u64> {
        match self.byte()? {
            m @ 0x00..=0x7f => Some(m as u64),
            0xcc => self.be(1),
            0xcd => self.be(2),
            0xce => self.be(4),
            0xcf => self.be(8),
            _ => None,
        }
    }

    fn bin(&mut self) -> Option<&'a [u8]> {
        let n = match self.byte()? {
            0xc4 => self.be(1)?,
            0xc5 => self.be(2)?,
            0xc6 => self.be(4)?,
            _ => return None,
        };
        self.take(usize::try_from(n).ok()?)
    }
}

/// A change of the chunks, for keeping the checksums current.
pub(super) enum Change<'a> {
    /// A chunk appended, inserted or updated (its checksum).
    Place(Op, u32),
    /// `count` copies of a chunk (its checksum) inserted at `n`.
    InsertRun(usize, usize, u32),
    /// `count` chunks deleted from `n`.
    DeleteRun(usize, usize),
    /// The chunks reordered (new chunk `i` is old chunk `order[i]`).
    Reorder(&'a [i64]),
}

/// Apply `change` to `crcs`, the checksums of `nchunks` chunks (fewer when another library
/// added chunks: those stay unrecorded, and so does what follows a change among them).
fn apply(crcs: &mut Vec<u32>, nchunks: usize, change: &Change<'_>) {
    crcs.truncate(nchunks);
    let len = crcs.len();
    match *change {
        Change::Place(Op::Append, crc) => {
            if len == nchunks {
                crcs.push(crc);
            }
        }
        Change::Place(Op::Insert(i), crc) => {
            if i <= len {
                crcs.insert(i, crc);
            }
        }
        Change::Place(Op::Update(i), crc) => {
            if i < len {
                crcs[i] = crc;
            }
        }
        Change::InsertRun(n, count, crc) => {
            if n <= len {
                crcs.splice(n..n, std::iter::repeat_n(crc, count));
            }
        }
        Change::DeleteRun(n, count) => {
            if n < len {
                crcs.drain(n..(n + count).min(len));
            }
        }
        Change::Reorder(order) => {
            let old = std::mem::take(crcs);
            for &o in order {
                match old.get(o as usize) {
                    Some(&c) => crcs.push(c),
                    None => break,
                }
            }
        }
    }
}

/// How the vlmetalayer is compressed: CRCs do not compress, so not at all.
fn layer_cparams() -> CParams {
    CParams {
        clevel: 0,
        typesize: 1,
        nthreads: 1,
        ..CParams::default()
    }
}

impl Schunk {
    /// Whether the super-chunk records chunk checksums (has the [`CHECKSUMS_VLMETA`]
    /// vlmetalayer).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// assert!(!sc.has_checksums());
    /// sc.enable_checksums().unwrap();
    /// assert!(sc.has_checksums());
    /// ```
    pub fn has_checksums(&self) -> bool {
        self.vlmetalayers.iter().any(|m| m.name == CHECKSUMS_VLMETA)
    }

    /// Record a CRC-32C of every chunk as it is now in the [`CHECKSUMS_VLMETA`] vlmetalayer,
    /// kept current by every later change of the chunks (see [`chunk_checksum`] for
    /// what is covered). Returns `false` (and changes nothing) when the
    /// checksums were already recorded; delete the vlmetalayer first to record them anew.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::{ChunkCheck, Schunk};
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// sc.append_buffer(&[1u8; 1000]).unwrap();
    /// assert!(sc.enable_checksums().unwrap());
    /// assert!(!sc.enable_checksums().unwrap());
    /// sc.append_buffer(&[2u8; 1000]).unwrap();
    /// assert_eq!(sc.verify_chunk(1).unwrap(), ChunkCheck::Intact);
    /// ```
    pub fn enable_checksums(&mut self) -> Result<bool> {
        if self.has_checksums() {
            return Ok(false);
        }
        self.record_checksums()?;
        Ok(true)
    }

    /// `vlmeta_add` (`add`) or `vlmeta_update` of the checksums' vlmetalayer: recorded anew
    /// from the chunks; returns its index.
    pub(super) fn vlmeta_checksums(&mut self, add: bool) -> Result<usize> {
        match (add, self.has_checksums()) {
            (true, true) => {
                crate::trace_error!(
                    "Variable-length metalayer \"{}\" already exists",
                    CHECKSUMS_VLMETA
                );
                return Err(Error::InvalidParam);
            }
            (false, false) => return Err(Error::NotFound),
            _ => {}
        }
        self.record_checksums()?;
        self.vlmeta_exists(CHECKSUMS_VLMETA)
    }

    /// Write the vlmetalayer from the chunks as they are now.
    fn record_checksums(&mut self) -> Result<()> {
        let crcs = (0..self.nchunks())
            .map(|n| Ok(chunk_checksum(&self.get_chunk(n)?)))
            .collect::<Result<Vec<u32>>>()?;
        let content = ChunkChecksums { crcs }.encode();
        self.write_checksums_layer(&content)
    }

    /// Take the checksums' vlmetalayer `content` as it is (a copy of a super-chunk that keeps
    /// its chunks as they are).
    pub(super) fn adopt_checksums(&mut self, content: &[u8]) -> Result<()> {
        self.write_checksums_layer(content)
    }

    /// Add or replace the vlmetalayer with `content` (as the vlmetalayer calls do).
    fn write_checksums_layer(&mut self, content: &[u8]) -> Result<()> {
        let p = layer_cparams();
        self.locked(LockMode::Exclusive, |s| {
            if s.has_checksums() {
                s.vlmeta_update_unlocked(CHECKSUMS_VLMETA, content, &p)?;
            } else {
                s.vlmeta_add_unlocked(CHECKSUMS_VLMETA, content, &p)?;
            }
            s.checksums_tick += 1;
            Ok(())
        })
    }

    /// The recorded checksums (`None` when there are none).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// assert!(sc.checksums().unwrap().is_none());
    /// sc.append_buffer(&[1u8; 1000]).unwrap();
    /// sc.enable_checksums().unwrap();
    /// assert_eq!(sc.checksums().unwrap().unwrap().crcs().len(), 1);
    /// ```
    pub fn checksums(&self) -> Result<Option<ChunkChecksums>> {
        if !self.has_checksums() {
            return Ok(None);
        }
        let content = self.vlmeta_get(CHECKSUMS_VLMETA)?;
        ChunkChecksums::decode(&content).map(Some)
    }

    /// Check chunk `n` against its recorded checksum (no decompression: its stored bytes are
    /// read and hashed). An error when the chunk cannot be read at all (which also means it is
    /// damaged) or the checksums cannot be read.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::Frame;
    /// use b2rs::schunk::{ChunkCheck, Schunk};
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// let data: Vec<u8> = (0..4000u32).map(|i| (i % 251) as u8).collect();
    /// sc.append_buffer(&data).unwrap();
    /// assert_eq!(sc.verify_chunk(0).unwrap(), ChunkCheck::Unrecorded);
    /// sc.enable_checksums().unwrap();
    /// assert_eq!(sc.verify_chunk(0).unwrap(), ChunkCheck::Intact);
    ///
    /// // flip the last byte of the chunk in the serialised frame
    /// let mut cframe = sc.to_cframe().unwrap();
    /// let chunk = sc.get_chunk(0).unwrap().into_owned();
    /// let at = cframe.windows(chunk.len()).position(|w| w == &chunk[..]).unwrap() + chunk.len() - 1;
    /// cframe[at] ^= 0x01;
    /// let back = Schunk::from_frame(Frame::from_bytes(cframe).unwrap(), DParams::default());
    /// assert!(matches!(back.verify_chunk(0).unwrap(), ChunkCheck::Damaged { .. }));
    /// ```
    pub fn verify_chunk(&self, n: i64) -> Result<ChunkCheck> {
        self.index(n)?;
        let Some(sums) = self.checksums()? else {
            return Ok(ChunkCheck::Unrecorded);
        };
        Ok(sums.check(n as usize, &self.get_chunk(n)?))
    }

    /// Bumped whenever the chunk checksums are rewritten (for mirrors of the vlmetalayer).
    #[cfg(feature = "capi")]
    pub(crate) fn checksums_tick(&self) -> u64 {
        self.checksums_tick
    }

    /// Run `op`, a change of the chunks, keeping the checksums current when they are recorded.
    /// In a frame the new vlmetalayer is staged first, written by the change itself (one write
    /// of the frame's trailer) and taken back if it fails.
    pub(super) fn with_checksums<T>(
        &mut self,
        change: Change<'_>,
        op: impl FnOnce(&mut Schunk) -> Result<T>,
    ) -> Result<T> {
        let Some(i) = self
            .vlmetalayers
            .iter()
            .position(|m| m.name == CHECKSUMS_VLMETA)
        else {
            return op(self);
        };
        let mut sums = match self.checksums() {
            Ok(Some(s)) => s,
            _ => {
                crate::trace_error!("Chunk checksums unreadable: not kept current");
                return op(self);
            }
        };
        apply(&mut sums.crcs, self.nchunks() as usize, &change);
        let chunk = match sums.to_vlmetalayer() {
            Ok(c) => c,
            Err(e) => {
                crate::trace_error!("Chunk checksums not kept current: {}", e);
                return op(self);
            }
        };
        let old = match &mut self.store {
            Store::Frame(f) => f.stage_vlmetalayer(CHECKSUMS_VLMETA, chunk.clone()),
            Store::Memory(_) => None,
        };
        let r = op(self);
        match (&r, old) {
            (Ok(_), _) => {
                self.vlmetalayers[i].content = chunk;
                self.checksums_tick += 1;
            }
            (Err(_), Some(old)) => {
                if let Store::Frame(f) = &mut self.store {
                    f.stage_vlmetalayer(CHECKSUMS_VLMETA, old);
                }
            }
            (Err(_), None) => {}
        }
        r
    }

    /// After a special fill (of an empty super-chunk): record the new chunks.
    pub(super) fn after_fill(&mut self) -> Result<()> {
        if self.has_checksums() {
            self.record_checksums()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply_keeps_positions() {
        let (a, b, x) = (10, 20, 90);
        let mut v = vec![a, b];
        apply(&mut v, 2, &Change::Place(Op::Insert(1), x));
        assert_eq!(v, [a, x, b]);
        apply(&mut v, 3, &Change::Reorder(&[2, 0, 1]));
        assert_eq!(v, [b, a, x]);
        apply(&mut v, 3, &Change::DeleteRun(0, 2));
        assert_eq!(v, [x]);
        apply(&mut v, 1, &Change::InsertRun(1, 2, a));
        assert_eq!(v, [x, a, a]);
        // another library appended 2 chunks: they stay unrecorded, and so does an append
        let mut w = vec![1, 2];
        apply(&mut w, 4, &Change::Place(Op::Append, a));
        assert_eq!(w, [1, 2]);
        apply(&mut w, 5, &Change::Place(Op::Update(1), a));
        assert_eq!(w, [1, a]);
        // ... or deleted some: the list is cut to the chunks
        let mut w = vec![1, 2, 3];
        apply(&mut w, 2, &Change::Place(Op::Append, a));
        assert_eq!(w, [1, 2, a]);
        let mut w = vec![1, 2];
        apply(&mut w, 3, &Change::Reorder(&[0, 2, 1]));
        assert_eq!(w, [1]);
    }

    #[test]
    fn decode_refuses_bad_content() {
        let good = ChunkChecksums::from_crcs((0..70_000).collect()).encode();
        assert_eq!(ChunkChecksums::decode(&good).unwrap().crcs().len(), 70_000);
        assert!(ChunkChecksums::decode(&good[..good.len() - 1]).is_err());
        let mut extra = good.clone();
        extra.push(0);
        assert!(ChunkChecksums::decode(&extra).is_err());
        assert!(ChunkChecksums::decode(b"").is_err());
        // bin of 3 bytes
        assert!(ChunkChecksums::decode(b"\x82\xa7version\x01\xa6crc32c\xc4\x03abc").is_err());
        // keys in another order
        let ok = b"\x82\xa6crc32c\xc4\x04abcd\xa7version\x01";
        assert_eq!(ChunkChecksums::decode(ok).unwrap().crcs().len(), 1);
    }

    #[test]
    fn specials_by_meaning() {
        use crate::chunk::special::special_chunk;
        let mut a = [0u8; 32];
        let mut b = [0u8; 32];
        let p1 = CParams {
            typesize: 4,
            ..CParams::default()
        };
        let p2 = CParams {
            typesize: 4,
            blocksize: 1024,
            ..CParams::default()
        };
        special_chunk(&p1, Special::Zero, 4000, None, &mut a).unwrap();
        special_chunk(&p2, Special::Zero, 4000, None, &mut b).unwrap();
        assert_eq!(chunk_checksum(&a), chunk_checksum(&b));
        special_chunk(&p2, Special::Zero, 4004, None, &mut b).unwrap();
        assert_ne!(chunk_checksum(&a), chunk_checksum(&b));
        special_chunk(&p1, Special::Nan, 4000, None, &mut b).unwrap();
        assert_ne!(chunk_checksum(&a), chunk_checksum(&b));
    }
}
