//! The chunk index of an open frame, read lazily.
//!
//! A frame header of a few hundred bytes can claim hundreds of millions of chunks (a run-of-value
//! or very compressible offsets chunk), and a real frame can have that many. Like C-Blosc2, which
//! reads one offset at a time from the compressed offsets chunk, a frame does not decode a large
//! index when it is opened: it keeps the offsets chunk and decodes the piece holding an asked-for
//! entry (the last piece is kept, so walking the chunks in order decodes each piece once). The
//! whole table is decoded only when a change needs it. Small indexes (up to [`EAGER_BYTES`]) are
//! decoded and checked at once, which keeps the errors of damaged small frames at open.

use super::coff::Coff;
use super::index::{self, OFFSET_SIZE};
use crate::error::{Error, Result};
use std::sync::Mutex;

/// Indexes of at most this many bytes (128 Ki chunks) are decoded when a frame is opened.
pub(super) const EAGER_BYTES: usize = 1 << 20;

/// Least bytes of a stored index decoded into the cache at a time (one block of the offsets
/// chunks C-Blosc2 writes after a change).
const CACHE_PIECE: usize = 16 << 10;

/// Least bytes of a stored index decoded at a time by a walk.
const WALK_PIECE: usize = 1 << 20;

/// The offsets of a frame's chunks (negative values: special chunks), one per logical chunk.
pub(super) struct Offsets {
    repr: Repr,
}

enum Repr {
    /// Decoded (a small index, or one that a change touched).
    Table(Vec<i64>),
    /// Still compressed, as stored in the frame.
    Stored(Stored),
}

struct Stored {
    /// The number of offsets.
    len: usize,
    /// Bytes decoded into the cache at a time (whole blocks and whole offsets).
    piece: usize,
    /// Largest valid stored offset (or chunk file number).
    max_offset: i64,
    state: Mutex<State>,
}

struct State {
    coff: Coff,
    /// The last piece decoded: its first entry and its offsets.
    last: Option<(usize, Vec<i64>)>,
}

impl State {
    /// Decode the bytes `start..start + buf.len()` of the offsets (fetching them first).
    fn decode(&mut self, start: usize, buf: &mut [u8], out: &mut Vec<i64>) -> Result<()> {
        self.coff.ensure(start, buf.len())?;
        index::decode_range(self.coff.bytes(), start, buf, out)
    }
}

/// An empty table with room for `n` offsets, reserved fallibly (`n` may come from an untrusted
/// header).
pub(super) fn reserve_table(n: usize) -> Result<Vec<i64>> {
    let mut t = Vec::new();
    t.try_reserve_exact(n).map_err(|_| {
        crate::trace_error!("Cannot allocate the index of {} chunks", n);
        Error::MemoryAlloc
    })?;
    Ok(t)
}

/// Check the stored offset `o` of chunk `i` (special values pass).
fn check(i: usize, o: i64, max_offset: i64) -> Result<i64> {
    if o > max_offset {
        crate::trace_error!("Offset for chunk {} is out of bounds", i);
        return Err(Error::InvalidHeader);
    }
    Ok(o)
}

/// Whether no two entries name the same stored chunk (as in every index C-Blosc2 writes).
fn distinct_stored(table: &[i64]) -> bool {
    let mut v: Vec<i64> = table.iter().copied().filter(|&o| o >= 0).collect();
    v.sort_unstable();
    v.windows(2).all(|w| w[0] != w[1])
}

/// The `len` offsets of the offsets chunk `coff`, each checked against `max_offset`.
fn decode_checked(coff: &[u8], len: usize, max_offset: i64) -> Result<Vec<i64>> {
    let table = index::decode(coff, len as i64)?;
    for (i, &o) in table.iter().enumerate() {
        check(i, o, max_offset)?;
    }
    Ok(table)
}

impl Offsets {
    /// No chunks.
    pub(super) fn new() -> Offsets {
        Offsets::from_table(Vec::new())
    }

    /// A decoded table.
    pub(super) fn from_table(table: Vec<i64>) -> Offsets {
        Offsets {
            repr: Repr::Table(table),
        }
    }

    /// The index held by the offsets chunk `coff`, which must index exactly `nchunks` chunks,
    /// each stored offset at most `max_offset`. Small indexes are decoded and checked now;
    /// large ones when their entries are read (the first piece is decoded now, so a chunk that
    /// cannot be decoded at all fails here).
    pub(super) fn from_chunk(coff: Vec<u8>, nchunks: i64, max_offset: i64) -> Result<Offsets> {
        Offsets::from_coff(Coff::whole(coff), nchunks, max_offset)
    }

    /// Like [`Offsets::from_chunk`], for a chunk whose blocks may be fetched as they are read
    /// (never decoded at once, whatever its size).
    pub(super) fn from_coff(coff: Coff, nchunks: i64, max_offset: i64) -> Result<Offsets> {
        let len = index::check_count(coff.bytes(), nchunks)?;
        let bytes = len * OFFSET_SIZE;
        if bytes <= EAGER_BYTES && !coff.is_fetched() {
            let table = index::decode(coff.bytes(), len as i64)?;
            // One entry out of the chunks section (a damaged entry) fails its chunk when read
            // (`Frame::stored_span`, a sparse frame's chunk file); more mean a damaged offsets
            // chunk that still decodes to garbage, which might name other chunks: refused, as
            // C-Blosc2 refuses any
            let bad = table.iter().filter(|&&o| o > max_offset).count();
            if bad > 1 || (bad == 1 && !distinct_stored(&table)) {
                crate::trace_error!("{} of the {} chunk offsets are out of bounds", bad, len);
                return Err(Error::InvalidHeader);
            }
            return Ok(Offsets::from_table(table));
        }
        let offsets = Offsets {
            repr: Repr::Stored(Stored {
                len,
                piece: index::piece_of(coff.bytes(), bytes, CACHE_PIECE),
                max_offset,
                state: Mutex::new(State { coff, last: None }),
            }),
        };
        // (an out-of-range first entry fails chunk 0 only, when read)
        offsets.raw(0)?;
        Ok(offsets)
    }

    /// The number of chunks.
    pub(super) fn len(&self) -> usize {
        match &self.repr {
            Repr::Table(t) => t.len(),
            Repr::Stored(s) => s.len,
        }
    }

    /// Whether there are no chunks.
    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The offset of chunk `i` (`i < len()`), checked against the largest valid stored offset
    /// when the index is still stored (a decoded table is checked where chunks are read).
    pub(super) fn get(&self, i: usize) -> Result<i64> {
        let o = self.raw(i)?;
        match &self.repr {
            Repr::Table(_) => Ok(o),
            Repr::Stored(s) => check(i, o, s.max_offset),
        }
    }

    /// The entry of chunk `i` as stored (`i < len()`).
    fn raw(&self, i: usize) -> Result<i64> {
        match &self.repr {
            Repr::Table(t) => t.get(i).copied().ok_or(Error::InvalidParam),
            Repr::Stored(s) => {
                if i >= s.len {
                    return Err(Error::InvalidParam);
                }
                let mut st = s.state.lock().unwrap_or_else(|e| e.into_inner());
                if let Some((first, piece)) = st.last.as_ref() {
                    if let Some(&o) = i.checked_sub(*first).and_then(|k| piece.get(k)) {
                        return Ok(o);
                    }
                }
                let per_piece = s.piece / OFFSET_SIZE;
                let first = i / per_piece * per_piece;
                let n = per_piece.min(s.len - first);
                let mut buf = crate::error::zeroed_vec(n * OFFSET_SIZE)?;
                let mut piece = Vec::with_capacity(n);
                st.decode(first * OFFSET_SIZE, &mut buf, &mut piece)?;
                let o = piece[i - first];
                st.last = Some((first, piece));
                Ok(o)
            }
        }
    }

    /// Call `f` with each entry number and offset from entry `first` on, in order, until it
    /// returns `false` (a stored index is decoded a piece at a time, without the cache).
    pub(super) fn walk(
        &self,
        first: usize,
        mut f: impl FnMut(usize, i64) -> Result<bool>,
    ) -> Result<()> {
        match &self.repr {
            Repr::Table(t) => {
                for (i, &o) in t.iter().enumerate().skip(first) {
                    if !f(i, o)? {
                        break;
                    }
                }
            }
            Repr::Stored(s) => {
                let per_piece = {
                    let st = s.state.lock().unwrap_or_else(|e| e.into_inner());
                    index::piece_of(st.coff.bytes(), s.len * OFFSET_SIZE, WALK_PIECE) / OFFSET_SIZE
                };
                let mut buf = crate::error::zeroed_vec(per_piece.min(s.len) * OFFSET_SIZE)?;
                let mut piece = Vec::with_capacity(per_piece.min(s.len));
                let mut start = first / per_piece * per_piece;
                while start < s.len {
                    let n = per_piece.min(s.len - start);
                    piece.clear();
                    let bytes = &mut buf[..n * OFFSET_SIZE];
                    s.state.lock().unwrap_or_else(|e| e.into_inner()).decode(
                        start * OFFSET_SIZE,
                        bytes,
                        &mut piece,
                    )?;
                    for (k, &o) in piece.iter().enumerate().skip(first.saturating_sub(start)) {
                        if !f(start + k, check(start + k, o, s.max_offset)?)? {
                            return Ok(());
                        }
                    }
                    start += n;
                }
            }
        }
        Ok(())
    }

    /// All the offsets, decoded and checked.
    pub(super) fn to_vec(&self) -> Result<Vec<i64>> {
        match &self.repr {
            Repr::Table(t) => Ok(t.clone()),
            Repr::Stored(s) => {
                let mut st = s.state.lock().unwrap_or_else(|e| e.into_inner());
                st.coff.ensure_all()?;
                decode_checked(st.coff.bytes(), s.len, s.max_offset)
            }
        }
    }

    /// The decoded table, for a change (decoding a stored index first).
    pub(super) fn table_mut(&mut self) -> Result<&mut Vec<i64>> {
        if let Repr::Stored(_) = self.repr {
            self.repr = Repr::Table(self.to_vec()?);
        }
        match &mut self.repr {
            Repr::Table(t) => Ok(t),
            Repr::Stored(_) => unreachable!("decoded above"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::header::Special;

    #[test]
    fn small_indexes_are_decoded_and_checked_at_once() {
        let c = index::encode(&[0, 100, 200]).unwrap();
        let o = Offsets::from_chunk(c.clone(), 3, 200).unwrap();
        assert!(matches!(o.repr, Repr::Table(_)));
        assert_eq!(o.to_vec().unwrap(), [0, 100, 200]);
        // one entry out of the chunks section fails its chunk only (Frame::stored_span); two
        // or more refuse the index
        assert_eq!(
            Offsets::from_chunk(c.clone(), 3, 199).unwrap().get(2),
            Ok(200)
        );
        assert_eq!(
            Offsets::from_chunk(c.clone(), 3, 99).err(),
            Some(Error::InvalidHeader)
        );
        assert_eq!(
            Offsets::from_chunk(c, 4, 200).err(),
            Some(Error::InvalidHeader)
        );
    }

    #[test]
    fn large_indexes_are_read_a_piece_at_a_time() {
        // 300 000 offsets (2.4 MB): read lazily, a 16 KiB block at a time (walks: 1 MiB)
        let want: Vec<i64> = (0..300_000i64).map(|i| i * 1000 + i % 7).collect();
        let max = *want.last().unwrap();
        let c = index::encode(&want).unwrap();
        let mut o = Offsets::from_chunk(c.clone(), want.len() as i64, max).unwrap();
        assert!(matches!(o.repr, Repr::Stored(_)));
        assert_eq!(o.len(), want.len());
        for i in (0..want.len())
            .step_by(997)
            .chain([want.len() - 1, 0, 150_000])
        {
            assert_eq!(o.get(i).unwrap(), want[i], "entry {i}");
        }
        assert_eq!(o.get(want.len()).err(), Some(Error::InvalidParam));
        // walked from any entry, stopping when asked
        for first in [0, 1, 131_071, 131_072, 299_999, 300_000] {
            let mut seen = Vec::new();
            o.walk(first, |i, v| {
                seen.push((i, v));
                Ok(i < 200_000)
            })
            .unwrap();
            // up to entry 200 000 included, or the first one only after it
            let end = if first <= 200_000 { 200_001 } else { first + 1 };
            let want_seen: Vec<(usize, i64)> =
                (first..end.min(want.len())).map(|i| (i, want[i])).collect();
            assert_eq!(seen, want_seen, "from {first}");
        }
        assert_eq!(o.to_vec().unwrap(), want);
        o.table_mut().unwrap().push(5);
        assert_eq!(o.len(), want.len() + 1);
        assert_eq!(o.get(want.len()).unwrap(), 5);

        // an entry out of bounds fails when it is read (and so does the whole table)
        let o = Offsets::from_chunk(c, want.len() as i64, max - 1).unwrap();
        assert_eq!(o.get(0).unwrap(), 0);
        assert_eq!(o.get(want.len() - 1).err(), Some(Error::InvalidHeader));
        assert_eq!(o.to_vec().err(), Some(Error::InvalidHeader));
    }

    #[test]
    fn a_huge_run_of_special_offsets_costs_nothing_at_open() {
        // 2^28 - 1 special offsets: 2 GiB decoded, a 40-byte chunk stored
        let zero = index::special_offset(Special::Zero).unwrap();
        let n = index::MAX_NCHUNKS - 1;
        let c = index::encode_repeated(zero, n).unwrap();
        let o = Offsets::from_chunk(c, n, 0).unwrap();
        assert_eq!(o.len() as i64, n);
        assert_eq!(o.get(n as usize - 1).unwrap(), zero);
        assert_eq!(o.get(12_345_678).unwrap(), zero);
    }

    #[test]
    fn a_frame_with_a_large_index_reads_and_changes() {
        use crate::frame::{Frame, FrameParams};
        use crate::{chunk, CParams, DParams};
        // 150 000 chunks of one u64 each (1.2 MB of offsets: read lazily)
        let n = 150_000u64;
        let cparams = CParams {
            typesize: 8,
            ..CParams::default()
        };
        let params = FrameParams::from_cparams(&cparams, 1);
        let chunk_of = |v: u64| {
            let mut buf = vec![0u8; 8 + chunk::header::MAX_OVERHEAD];
            let len = chunk::compress(&cparams, &v.to_le_bytes(), &mut buf).unwrap();
            buf.truncate(len);
            buf
        };
        let chunks: Vec<Vec<u8>> = (0..n).map(chunk_of).collect();
        let refs: Vec<&[u8]> = chunks.iter().map(|c| c.as_slice()).collect();
        let bytes = Frame::from_chunks(&params, &refs, &[], &[])
            .unwrap()
            .to_bytes()
            .unwrap();
        let value = |f: &Frame, i: u64| {
            let mut out = [0u8; 8];
            let c = f.get_chunk(i as i64).unwrap();
            chunk::decompress(&DParams::default(), &c, &mut out, None).unwrap();
            u64::from_le_bytes(out)
        };
        let mut f = Frame::from_bytes(bytes.clone()).unwrap();
        assert!(matches!(f.offsets.repr, Repr::Stored(_)));
        assert_eq!(f.nchunks(), n as i64);
        for i in [0, 1, n / 2, n - 1, 7, 131_071, 131_072] {
            assert_eq!(value(&f, i), i);
        }
        assert_eq!(f.offsets().unwrap().len(), n as usize);
        // a change decodes the table, and the frame written back reads the same
        f.update_chunk(3, &chunk_of(1_000_000)).unwrap();
        assert!(matches!(f.offsets.repr, Repr::Table(_)));
        f.delete_chunk(0).unwrap();
        let g = Frame::from_bytes(f.to_bytes().unwrap()).unwrap();
        assert_eq!(g.nchunks(), n as i64 - 1);
        assert_eq!(value(&g, 2), 1_000_000);
        assert_eq!(value(&g, 0), 1);
        assert_eq!(value(&g, n - 2), n - 1);

        // an offset out of bounds: found when read, and a change fails before writing anything
        let mut table = Frame::from_bytes(bytes.clone()).unwrap().offsets().unwrap();
        table[140_000] = i64::MAX / 2;
        let (hl, cbytes) = (f.header_len() as usize, f.cbytes() as usize);
        let mut d = Frame::from_chunks(&params, &refs[..1], &[], &[]).unwrap();
        d.chunksize = 8;
        d.nbytes = n as i64 * 8;
        d.build_memory(
            bytes[hl..hl + cbytes].to_vec(),
            index::encode_whole(&table).unwrap(),
        )
        .unwrap();
        let mut d = Frame::from_bytes(d.to_bytes().unwrap()).unwrap();
        assert_eq!(d.nchunks(), n as i64);
        assert_eq!(value(&d, 139_999), 139_999);
        assert_eq!(d.get_chunk(140_000).err(), Some(Error::InvalidHeader));
        let before = d.to_bytes().unwrap();
        assert_eq!(
            d.update_chunk(3, &chunk_of(7)).err(),
            Some(Error::InvalidHeader)
        );
        assert_eq!(
            d.append_chunk(&chunk_of(7)).err(),
            Some(Error::InvalidHeader)
        );
        assert_eq!(d.delete_chunk(3).err(), Some(Error::InvalidHeader));
        assert!(d.to_bytes().unwrap() == before, "the damaged frame changed");
        assert_eq!((d.nchunks(), value(&d, 3)), (n as i64, 3));
    }

    #[test]
    fn a_chunk_that_does_not_decode_fails_at_open() {
        let want: Vec<i64> = (0..200_000i64).map(|i| i * 3).collect();
        let mut c = index::encode(&want).unwrap();
        let at = c.len() - 100;
        c.truncate(at);
        assert!(Offsets::from_chunk(c, want.len() as i64, i64::MAX).is_err());
    }
}
