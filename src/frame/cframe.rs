//! Contiguous storage: reading and validating a frame (FRAME.md §11) and rewriting its tail
//! (offsets chunk, header, trailer) in the order of FRAME.md §7, for frames in memory, in files
//! (at any offset) and for the index file of sparse frames.

use super::coff::{Coff, ReadFn};
use super::header::{self, FixedHeader, HEADER_MINLEN};
use super::io::{IoHandle, OpenMode};
use super::offsets::{reserve_table, Offsets};
use super::trailer::{self, TRAILER_MINLEN};
use super::{index, sframe, Frame, MemBuf, OffsetsChunk, Storage};
use crate::chunk::header::EXTENDED_HEADER_LENGTH;
use crate::error::{Error, Result};
use std::collections::HashMap;

/// The bytes of a contiguous frame (or of a sparse frame's index file), addressed from the
/// frame's first byte.
pub(super) enum Bytes<'a> {
    /// In-memory bytes; lent bytes are copied at the first write.
    Mem(&'a mut MemBuf),
    File {
        h: Box<dyn IoHandle + 'a>,
        base: u64,
    },
}

fn mem_range(pos: u64, len: usize) -> Result<std::ops::Range<usize>> {
    let start = usize::try_from(pos).map_err(|_| Error::ReadBuffer)?;
    let end = start.checked_add(len).ok_or(Error::ReadBuffer)?;
    Ok(start..end)
}

fn file_pos(base: u64, pos: u64) -> Result<u64> {
    base.checked_add(pos).ok_or(Error::InvalidParam)
}

impl Bytes<'_> {
    /// The version of the stored object read ([`IoHandle::version`]; `None` in memory).
    pub(super) fn version(&self) -> Option<String> {
        match self {
            Bytes::Mem(_) => None,
            Bytes::File { h, .. } => h.version(),
        }
    }

    /// Bytes available from the frame start to the end of the buffer or file.
    pub(super) fn available(&mut self) -> Result<u64> {
        match self {
            Bytes::Mem(v) => Ok(v.as_slice().len() as u64),
            Bytes::File { h, base } => {
                let size = h.size()?;
                if *base > size {
                    crate::trace_error!("The frame offset is beyond the end of the file");
                    return Err(Error::FileRead);
                }
                Ok(size - *base)
            }
        }
    }

    pub(super) fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        match self {
            Bytes::Mem(v) => {
                let r = mem_range(pos, buf.len())?;
                buf.copy_from_slice(v.as_slice().get(r).ok_or(Error::ReadBuffer)?);
                Ok(())
            }
            Bytes::File { h, base } => h.read_at(file_pos(*base, pos)?, buf),
        }
    }

    pub(super) fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        match self {
            Bytes::Mem(v) => {
                let v = v.to_mut();
                let r = mem_range(pos, data.len()).map_err(|_| Error::WriteBuffer)?;
                if v.len() < r.start {
                    v.resize(r.start, 0);
                }
                // Overwrite what exists, append the rest (without zero-filling it first).
                let over = (v.len() - r.start).min(data.len());
                v[r.start..r.start + over].copy_from_slice(&data[..over]);
                if over < data.len() {
                    v.try_reserve(data.len() - over)
                        .map_err(|_| Error::MemoryAlloc)?;
                    v.extend_from_slice(&data[over..]);
                }
                Ok(())
            }
            Bytes::File { h, base } => h.write_at(file_pos(*base, pos)?, data),
        }
    }

    pub(super) fn set_len(&mut self, len: u64) -> Result<()> {
        match self {
            Bytes::Mem(v) => {
                let len = usize::try_from(len).map_err(|_| Error::MemoryAlloc)?;
                if v.as_slice().len() != len {
                    v.to_mut().resize(len, 0);
                }
                Ok(())
            }
            Bytes::File { h, base } => h.truncate(file_pos(*base, len)?),
        }
    }

    /// Move `len` bytes from `from` to `to` (the ranges may overlap).
    pub(super) fn copy_within(&mut self, from: u64, to: u64, len: u64) -> Result<()> {
        if len == 0 || from == to {
            return Ok(());
        }
        if let Bytes::Mem(v) = self {
            let v = v.to_mut();
            let src = mem_range(from, len as usize)?;
            let dst = mem_range(to, len as usize)?;
            if v.len() < dst.end {
                v.resize(dst.end, 0);
            }
            if src.end > v.len() {
                return Err(Error::ReadBuffer);
            }
            v.copy_within(src, dst.start);
            return Ok(());
        }
        const STEP: u64 = 4 << 20;
        let mut buf = vec![0u8; len.min(STEP) as usize];
        if to < from {
            let mut done = 0;
            while done < len {
                let n = (len - done).min(STEP) as usize;
                self.read_at(from + done, &mut buf[..n])?;
                self.write_at(to + done, &buf[..n])?;
                done += n as u64;
            }
        } else {
            let mut left = len;
            while left > 0 {
                let n = left.min(STEP);
                left -= n;
                self.read_at(from + left, &mut buf[..n as usize])?;
                self.write_at(to + left, &buf[..n as usize])?;
            }
        }
        Ok(())
    }
}

/// Open the contiguous bytes of a storage (the index file for sparse frames).
pub(super) fn open_bytes(storage: &mut Storage, mode: OpenMode) -> Result<Bytes<'_>> {
    match storage {
        Storage::Memory(v) => Ok(Bytes::Mem(v)),
        Storage::File { path, offset, io } => Ok(Bytes::File {
            h: io.open(path, mode)?,
            base: *offset,
        }),
        Storage::Dir { path, io } => Ok(Bytes::File {
            h: io.open(&sframe::index_path(path), mode)?,
            base: 0,
        }),
    }
}

/// What reading a frame yields besides its storage.
struct Parsed {
    fixed: FixedHeader,
    metalayers: Vec<super::Metalayer>,
    vlmetalayers: Vec<super::Metalayer>,
    offsets: Offsets,
    off_len: u64,
    trailer_len: u64,
    /// The header as read.
    header: Vec<u8>,
}

fn invalid(msg: &str) -> Error {
    crate::trace_error!("{}", msg);
    Error::InvalidHeader
}

fn read_vec(b: &mut Bytes<'_>, pos: u64, len: u64) -> Result<Vec<u8>> {
    let len = usize::try_from(len).map_err(|_| Error::MemoryAlloc)?;
    let mut buf = vec![0u8; len];
    b.read_at(pos, &mut buf)?;
    Ok(buf)
}

/// Makes the reader of the offsets chunk at a position of the frame's bytes.
type Fetcher = Box<dyn Fn(u64) -> ReadFn>;

/// How a frame on a ranged back-end ([`Io::ranged`]) reads its offsets chunk later: from the
/// `version` of the object the rest of the frame was read from.
fn fetcher_of(storage: &Storage) -> Option<impl FnOnce(Option<String>) -> Fetcher> {
    let (io, path, base) = match storage {
        Storage::Memory(_) => return None,
        Storage::File { path, offset, io } => (io, path.clone(), *offset),
        Storage::Dir { path, io } => (io, sframe::index_path(path), 0),
    };
    if !io.ranged(&path) {
        return None;
    }
    let io = io.clone();
    Some(move |version: Option<String>| -> Fetcher {
        Box::new(move |pos| {
            let (io, path, version) = (io.clone(), path.clone(), version.clone());
            Box::new(move |at, buf| {
                super::io::open_version(io.as_ref(), &path, version.as_deref())?
                    .read_at(base + pos + at, buf)
            })
        })
    })
}

/// Read and validate a frame (FRAME.md §11). `exact`: the frame must fill all the bytes
/// (in-memory frames); `fetcher`: read the offsets chunk as its entries are asked for.
fn parse(b: &mut Bytes<'_>, sparse: bool, exact: bool, fetcher: Option<Fetcher>) -> Result<Parsed> {
    let avail = b.available()?;
    if avail < HEADER_MINLEN as u64 {
        crate::trace_error!("Not enough bytes for a frame header");
        return Err(Error::ReadBuffer);
    }
    let mut fixed = [0u8; HEADER_MINLEN];
    b.read_at(0, &mut fixed)?;
    let frame_len = header::frame_len_of(&fixed)?;
    if frame_len < (HEADER_MINLEN + TRAILER_MINLEN) as i64 {
        return Err(invalid("Invalid frame length"));
    }
    let frame_len = frame_len as u64;
    if frame_len > avail {
        crate::trace_error!("The frame length exceeds the available bytes");
        return Err(Error::ReadBuffer);
    }
    if exact && frame_len != avail {
        return Err(invalid("The frame length does not match the buffer length"));
    }
    let mut tail = [0u8; TRAILER_MINLEN];
    b.read_at(frame_len - TRAILER_MINLEN as u64, &mut tail)?;
    let trailer_len = trailer::trailer_len_of(&tail)?;
    trailer::check_trailer_len(trailer_len, frame_len as i64)?;
    let trailer_len = trailer_len as u64;
    let fixed = FixedHeader::parse(&fixed, sparse)?;
    let hl = fixed.header_len as u64;
    let hbuf = read_vec(b, 0, hl)?;
    let metalayers = header::parse_metalayers(&hbuf)?;

    let mut offsets = Offsets::new();
    let mut off_len = 0;
    let trailer_pos;
    if fixed.nbytes > 0 {
        trailer_pos = frame_len - trailer_len;
        let section = if sparse { 0 } else { fixed.cbytes as u64 };
        let off_pos = hl
            .checked_add(section)
            .ok_or_else(|| invalid("Invalid compressed size in frame header"))?;
        if off_pos
            .checked_add(EXTENDED_HEADER_LENGTH as u64)
            .is_none_or(|e| e > trailer_pos)
        {
            return Err(invalid("Cannot read the offsets outside of the frame"));
        }
        let mut oh = [0u8; EXTENDED_HEADER_LENGTH];
        b.read_at(off_pos, &mut oh)?;
        let (onb, ocb) = index::sizes(&oh)?;
        // a negative cbytes must not pass as a huge unsigned size; a cbytes reaching into the
        // trailer (damaged) still leaves the entries readable, as C-Blosc2 reads them
        if ocb < EXTENDED_HEADER_LENGTH as i32
            || off_pos
                .checked_add(ocb as u64)
                .is_none_or(|e| e > frame_len)
        {
            return Err(invalid("The offsets chunk exceeds the frame"));
        }
        let nchunks = index::nchunks_of(fixed.nbytes, fixed.chunksize, Some(onb))?;
        let coff = match fetcher {
            Some(f) => Coff::fetched(ocb as usize, &oh, f(off_pos))?,
            None => Coff::whole(read_vec(b, off_pos, ocb as u64)?),
        };
        let max_offset = if sparse {
            u32::MAX as i64
        } else {
            fixed.cbytes - EXTENDED_HEADER_LENGTH as i64
        };
        offsets = Offsets::from_coff(coff, nchunks, max_offset)?;
        off_len = (ocb as u64).min(trailer_pos - off_pos);
    } else {
        trailer_pos = hl;
        if hl + trailer_len > frame_len {
            return Err(invalid("The trailer exceeds the frame"));
        }
    }
    let tbuf = read_vec(b, trailer_pos, trailer_len)?;
    let vlmetalayers = trailer::parse_vlmetalayers(&tbuf)?;
    let mut fixed = fixed;
    fixed.frame_len = frame_len as i64;
    if offsets.is_empty() {
        fixed.cbytes = 0;
        fixed.nbytes = 0;
    }
    Ok(Parsed {
        fixed,
        metalayers,
        vlmetalayers,
        offsets,
        off_len,
        trailer_len,
        header: hbuf,
    })
}

/// Read the frame held by `storage`.
pub(super) fn load(mut storage: Storage) -> Result<Frame> {
    let sparse = matches!(storage, Storage::Dir { .. });
    let exact = matches!(storage, Storage::Memory(_));
    let fetcher = fetcher_of(&storage);
    let (p, version) = {
        let mut b = open_bytes(&mut storage, OpenMode::Read)?;
        let version = b.version();
        let fetcher = fetcher.map(|f| f(version.clone()));
        (parse(&mut b, sparse, exact, fetcher)?, version)
    };
    Ok(Frame {
        storage,
        params: p.fixed.params,
        header_len: p.fixed.header_len as u64,
        nbytes: p.fixed.nbytes,
        cbytes: p.fixed.cbytes,
        chunksize: p.fixed.chunksize,
        vl_blocks: p.fixed.vl_blocks,
        metalayers: p.metalayers,
        vlmetalayers: p.vlmetalayers,
        offsets: p.offsets,
        off_len: p.off_len,
        trailer_len: p.trailer_len,
        frame_len: p.fixed.frame_len as u64,
        lock: None,
        seen_generation: 0,
        pending: Vec::new(),
        disk_header: if exact { Vec::new() } else { p.header },
        version,
        next_file: 0,
        hold_flush: false,
        soft_depth: 0,
    })
}

impl Frame {
    /// Rewrite the tail of the frame after a change: the offsets chunk at
    /// `header_len + cbytes` (`header_len` for sparse frames), then the header, then the
    /// trailer, then the new length (FRAME.md §7). The chunk bytes must already be in place.
    pub(super) fn write_tail(&mut self, oc: OffsetsChunk) -> Result<()> {
        let sparse = self.is_sparse();
        let probe = self.fixed_header(0).encode(&self.metalayers)?;
        let hl = probe.len() as u64;
        let mut oc = oc;
        if hl != self.header_len {
            if !sparse && (!self.offsets.is_empty() || self.cbytes > 0) {
                crate::trace_error!("The header cannot change size once chunks are stored");
                return Err(Error::InvalidParam);
            }
            if matches!(oc, OffsetsChunk::Keep) {
                oc = OffsetsChunk::Encode;
            }
        }
        let coff = match oc {
            _ if self.offsets.is_empty() => None,
            OffsetsChunk::Keep => None,
            OffsetsChunk::Encode => Some(index::encode(self.offsets.table_mut()?)?),
            OffsetsChunk::Given(c) => Some(c),
        };
        let off_len = match (&coff, self.offsets.is_empty()) {
            (_, true) => 0,
            (Some(c), _) => c.len() as u64,
            (None, _) => self.off_len,
        };
        let trailer = trailer::encode(&self.vlmetalayers)?;
        let tail_pos = hl + if sparse { 0 } else { self.cbytes as u64 };
        let frame_len = tail_pos + off_len + trailer.len() as u64;
        let mut header = probe;
        header[header::POS_FRAME_LEN..header::POS_FRAME_LEN + 8]
            .copy_from_slice(&(frame_len as i64).to_be_bytes());
        let pending = std::mem::take(&mut self.pending);
        if sparse && self.write_index_file(&header, coff.as_deref(), &trailer)? {
            // The index file was replaced at once.
        } else {
            // The header goes last: it commits the change. When the new offsets chunk and
            // trailer lie past the frame as it is now (an append of a chunk at least as long
            // as the old offsets chunk and trailer), the bytes of the new chunk that overlap
            // the old ones are written only after the header: a process killed at any moment
            // leaves a valid frame with every chunk appended before (at worst the chunk being
            // appended then reads as damaged).
            let committed = match self.storage {
                Storage::File { .. } => self.frame_len,
                _ => u64::MAX,
            };
            let late = coff.is_some() && tail_pos >= committed;
            let mut b = open_bytes(&mut self.storage, OpenMode::ReadWrite)?;
            if !late {
                for (pos, bytes) in &pending {
                    b.write_at(*pos, bytes)?;
                }
            }
            if let Some(c) = &coff {
                b.write_at(tail_pos, c)?;
            }
            b.write_at(tail_pos + off_len, &trailer)?;
            b.write_at(0, &header)?;
            if late {
                for (pos, bytes) in &pending {
                    b.write_at(*pos, bytes)?;
                }
            }
            b.set_len(frame_len)?;
        }
        self.header_len = hl;
        self.off_len = off_len;
        self.trailer_len = trailer.len() as u64;
        self.frame_len = frame_len;
        if !matches!(self.storage, Storage::Memory(_)) {
            self.disk_header = header;
            // the state is now what this handle wrote (a remote writer: a staged copy)
            self.version = None;
        }
        // a sparse frame is made durable at the end of every change (a remote back-end uploads
        // the chunk objects, then the index)
        if let Storage::Dir { path, io } = &self.storage {
            if !self.hold_flush {
                io.flush(path)?;
            }
        }
        Ok(())
    }

    /// Whether the header stored on disk differs from the one this frame last read or wrote:
    /// another handle or process changed the frame (every change rewrites the header: its
    /// lengths, counters or metalayers), or replaced the file. A header that cannot be read
    /// counts as a change (the reload then reports the error), and so does another version of
    /// a remote object (its ETag) than the one the frame was read from, whatever its header
    /// holds. Always `false` in memory.
    pub(super) fn disk_changed(&mut self) -> Result<bool> {
        if matches!(self.storage, Storage::Memory(_)) || self.disk_header.is_empty() {
            return Ok(false);
        }
        let n = self.disk_header.len();
        let mut now = vec![0u8; n];
        let version = self.version.clone();
        let read = open_bytes(&mut self.storage, OpenMode::Read).and_then(|mut b| {
            if version.is_some() && b.version() != version {
                return Err(Error::FileRead);
            }
            if b.available()? < n as u64 {
                return Err(Error::ReadBuffer);
            }
            b.read_at(0, &mut now)
        });
        Ok(read.is_err() || now != self.disk_header)
    }

    /// Replace the index file of a sparse frame at once (written aside, then renamed over the
    /// old one) when the I/O back-end can; returns whether it did.
    fn write_index_file(
        &mut self,
        header: &[u8],
        coff: Option<&[u8]>,
        trailer: &[u8],
    ) -> Result<bool> {
        let Storage::Dir { path, io } = &self.storage else {
            return Ok(false);
        };
        let index = sframe::index_path(path);
        let mut bytes = header.to_vec();
        match coff {
            Some(c) => bytes.extend_from_slice(c),
            None if !self.offsets.is_empty() => {
                // The offsets chunk stays as stored.
                let mut h = io.open(&index, OpenMode::Read)?;
                let start = bytes.len();
                bytes.resize(start + self.off_len as usize, 0);
                h.read_at(self.header_len, &mut bytes[start..])?;
            }
            None => {}
        }
        bytes.extend_from_slice(trailer);
        let mut tmp = index.clone().into_os_string();
        tmp.push(".tmp");
        let tmp = std::path::PathBuf::from(tmp);
        super::io::write_file(io.as_ref(), &tmp, &bytes)?;
        match io.replace_file(&tmp, &index) {
            Ok(true) => Ok(true),
            r => {
                let _ = io.remove_file(&tmp);
                r.map(|_| false)
            }
        }
    }

    /// Make this (in-memory) frame hold `section` as its chunks section and `coff` as its
    /// offsets chunk, with header and trailer from the frame's state.
    pub(super) fn build_memory(&mut self, section: Vec<u8>, coff: Vec<u8>) -> Result<()> {
        self.cbytes = section.len() as i64;
        let mut bytes = self.fixed_header(0).encode(&self.metalayers)?;
        let hl = bytes.len() as u64;
        bytes.extend_from_slice(&section);
        bytes.extend_from_slice(&coff);
        let trailer = trailer::encode(&self.vlmetalayers)?;
        bytes.extend_from_slice(&trailer);
        let frame_len = bytes.len() as u64;
        bytes[header::POS_FRAME_LEN..header::POS_FRAME_LEN + 8]
            .copy_from_slice(&(frame_len as i64).to_be_bytes());
        self.storage = Storage::Memory(MemBuf::Owned(bytes));
        self.header_len = hl;
        self.off_len = coff.len() as u64;
        self.trailer_len = trailer.len() as u64;
        self.frame_len = frame_len;
        Ok(())
    }

    /// An in-memory contiguous copy of this frame (chunks in logical order, special chunks kept
    /// as special offsets, shared chunks stored once).
    pub(super) fn contiguous_copy(&self) -> Result<Frame> {
        let mut f = Frame::empty(Storage::Memory(MemBuf::Owned(Vec::new())), &self.params);
        f.metalayers = self.metalayers.clone();
        f.vlmetalayers = self.vlmetalayers.clone();
        f.nbytes = self.nbytes;
        f.chunksize = self.chunksize;
        f.vl_blocks = self.vl_blocks;
        let mut section = Vec::new();
        let mut placed: HashMap<i64, i64> = HashMap::new();
        let mut table = reserve_table(self.offsets.len())?;
        for i in 0..self.offsets.len() {
            let o = self.offsets.get(i)?;
            if o < 0 {
                table.push(o);
                continue;
            }
            if let Some(&at) = placed.get(&o) {
                table.push(at);
                continue;
            }
            let c = self.get_chunk(i as i64)?;
            let at = section.len() as i64;
            section.extend_from_slice(&c);
            placed.insert(o, at);
            table.push(at);
        }
        let coff = if table.is_empty() {
            Vec::new()
        } else {
            index::encode_whole(&table)?
        };
        f.offsets = Offsets::from_table(table);
        f.build_memory(section, coff)?;
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Frame, FrameParams};
    use crate::params::CParams;
    use std::sync::Arc;

    fn chunk(seed: u8) -> Vec<u8> {
        let data: Vec<u8> = (0..4000u32).map(|i| (i as u8) ^ seed).collect();
        crate::schunk::compress_chunk(&CParams::default(), 0, &data).unwrap()
    }

    #[test]
    fn lent_frame_is_read_in_place_and_copied_on_write() {
        let c0 = chunk(1);
        let c1 = chunk(2);
        let f = Frame::from_chunks(&FrameParams::default(), &[&c0, &c1], &[], &[]).unwrap();
        let bytes: Arc<Vec<u8>> = Arc::new(f.into_bytes().unwrap());
        let saved = bytes.as_ref().clone();
        struct Lend(Arc<Vec<u8>>);
        impl AsRef<[u8]> for Lend {
            fn as_ref(&self) -> &[u8] {
                &self.0
            }
        }
        let mut g = Frame::from_shared(Box::new(Lend(bytes.clone()))).unwrap();
        assert!(g.is_lent());
        assert_eq!(g.nchunks(), 2);
        assert_eq!(g.as_bytes().unwrap().as_ptr(), bytes.as_ptr());
        assert_eq!(&*g.get_chunk(1).unwrap(), &c1[..]);
        g.append_chunk(&chunk(3)).unwrap();
        assert!(!g.is_lent());
        assert_eq!(g.nchunks(), 3);
        assert_eq!(bytes.as_ref(), &saved);
        assert_eq!(&*g.get_chunk(0).unwrap(), &c0[..]);
        assert_eq!(&*g.get_chunk(2).unwrap(), &chunk(3)[..]);
        // A damaged lent buffer fails cleanly.
        let mut bad = saved.clone();
        bad.truncate(bad.len() - 3);
        assert!(Frame::from_shared(Box::new(bad)).is_err());
    }
}
