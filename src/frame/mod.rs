//! Frames (FRAME.md): the serialised form of a super-chunk, either contiguous (a `cframe`, in
//! memory or in a file, possibly embedded at an offset of a larger file) or sparse (an
//! `sframe`: a directory with an index file and one file per chunk).
//!
//! [`Frame`] owns the bytes of a frame and keeps them a valid frame after every call: a process
//! killed between two calls leaves a readable file. It knows chunks only as opaque Blosc chunks
//! (plus their headers), and stores zero/NaN/uninit chunks as special offsets instead of bytes.
//!
//! Layout of the module: [`header`] (fixed header and metalayers), [`trailer`] (vlmetalayers,
//! `trailer_len`), [`index`] (the offsets chunk), [`io`] and [`mmap`] (I/O back-ends),
//! `cframe` (contiguous storage) and `sframe` (directories).

pub mod header;
pub mod index;
pub mod io;
pub mod mmap;
pub mod trailer;

mod cframe;
mod sframe;

pub use io::{Io, IoHandle, OpenMode, StdIo};
pub use mmap::{MmapIo, MmapMode};

use crate::chunk::header::{Header, Special, EXTENDED_HEADER_LENGTH};
use crate::error::{Error, Result};
use crate::params::{CParams, SplitMode};
use header::FixedHeader;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Most metalayers a frame can hold.
pub const MAX_METALAYERS: usize = 16;
/// Longest (vl)metalayer name, in bytes.
pub const MAX_NAME_LEN: usize = 31;
/// Most vlmetalayers written to a frame (C-Blosc2 fails beyond that).
pub const MAX_VLMETALAYERS_WRITE: usize = 16;
/// Most vlmetalayers accepted when reading a frame.
pub const MAX_VLMETALAYERS_READ: usize = 8192;

/// Super-chunk parameters recorded in a frame header (FRAME.md §2).
#[derive(Clone, Debug, PartialEq)]
pub struct FrameParams {
    /// Real typesize, may exceed 255.
    pub typesize: i32,
    /// Block size parameter; 0 = automatic.
    pub blocksize: i32,
    /// Public codec id (0 blosclz, 1 lz4, 2 lz4hc, 4 zlib, 5 zstd, ≥ 32 plugin/user).
    pub compcode: u8,
    /// Codec parameter byte.
    pub compcode_meta: u8,
    /// Compression level.
    pub clevel: u8,
    /// Split mode.
    pub splitmode: SplitMode,
    /// Filter pipeline.
    pub filters: [u8; 6],
    /// Filter parameters.
    pub filters_meta: [u8; 6],
    /// Dictionaries in use.
    pub use_dict: bool,
    /// Compression threads (informational).
    pub nthreads_comp: i16,
    /// Decompression threads (informational).
    pub nthreads_decomp: i16,
}

impl Default for FrameParams {
    fn default() -> Self {
        FrameParams::from_cparams(&CParams::default(), 1)
    }
}

impl FrameParams {
    /// The frame parameters of a super-chunk compressing with `c`.
    pub fn from_cparams(c: &CParams, nthreads_decomp: i16) -> FrameParams {
        FrameParams {
            typesize: c.typesize,
            blocksize: c.blocksize,
            compcode: c.compcode,
            compcode_meta: c.compcode_meta,
            clevel: c.clevel,
            splitmode: c.splitmode,
            filters: c.filters,
            filters_meta: c.filters_meta,
            use_dict: c.use_dict,
            nthreads_comp: c.nthreads,
            nthreads_decomp,
        }
    }

    /// Compression parameters matching the header (defaults for everything else).
    pub fn to_cparams(&self) -> CParams {
        CParams {
            typesize: self.typesize,
            blocksize: self.blocksize,
            compcode: self.compcode,
            compcode_meta: self.compcode_meta,
            clevel: self.clevel,
            splitmode: self.splitmode,
            filters: self.filters,
            filters_meta: self.filters_meta,
            use_dict: self.use_dict,
            nthreads: self.nthreads_comp.max(1),
            ..CParams::default()
        }
    }
}

/// A fixed-size metalayer (header) or a variable-length one (trailer; `content` is then the
/// *compressed* Blosc chunk exactly as stored).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metalayer {
    /// Name, 1 to 31 bytes.
    pub name: String,
    /// Content.
    pub content: Vec<u8>,
}

/// Where a frame lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A contiguous frame held in a `Vec<u8>`.
    Memory,
    /// A contiguous frame in a file, starting at byte `offset` (0 usually).
    File {
        /// The file.
        path: PathBuf,
        /// Where the frame starts in the file.
        offset: u64,
    },
    /// A sparse frame directory (index `chunks.b2frame` + `NNNNNNNN.chunk` files).
    Dir(PathBuf),
}

enum Storage {
    Memory(Vec<u8>),
    File {
        path: PathBuf,
        offset: u64,
        io: Arc<dyn Io>,
    },
    Dir {
        path: PathBuf,
        io: Arc<dyn Io>,
    },
}

/// What `write_tail` does with the offsets chunk.
enum OffsetsChunk {
    /// Leave the stored offsets chunk as it is.
    Keep,
    /// Encode `offsets` again.
    Encode,
    /// Store this already encoded offsets chunk.
    Given(Vec<u8>),
}

/// A contiguous or sparse frame (see the module documentation).
pub struct Frame {
    storage: Storage,
    params: FrameParams,
    header_len: u64,
    nbytes: i64,
    cbytes: i64,
    chunksize: i32,
    vl_blocks: bool,
    metalayers: Vec<Metalayer>,
    vlmetalayers: Vec<Metalayer>,
    offsets: Vec<i64>,
    /// Length of the stored offsets chunk (0 without chunks).
    off_len: u64,
    trailer_len: u64,
    frame_len: u64,
}

impl std::fmt::Debug for Frame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frame")
            .field("location", &self.location())
            .field("params", &self.params)
            .field("nchunks", &self.nchunks())
            .field("nbytes", &self.nbytes)
            .field("cbytes", &self.cbytes)
            .field("chunksize", &self.chunksize)
            .field("frame_len", &self.frame_len)
            .finish()
    }
}

/// A chunk handed to a mutating call, checked.
struct NewChunk<'a> {
    bytes: &'a [u8],
    nbytes: i64,
    /// Zero/NaN/uninit: can be stored as a special offset.
    special: Option<Special>,
    vl: bool,
}

fn check_new_chunk(chunk: &[u8], err: Error) -> Result<NewChunk<'_>> {
    let h = Header::parse(chunk)?;
    if !h.extended {
        crate::trace_error!("Chunks stored in frames need the 32-byte extended header");
        return Err(err);
    }
    let cbytes = h.cbytes as usize;
    if cbytes < EXTENDED_HEADER_LENGTH || chunk.len() < cbytes {
        crate::trace_error!("The chunk is shorter than its header says");
        return Err(Error::ReadBuffer);
    }
    if h.is_lazy() {
        crate::trace_error!("Lazy chunks cannot be stored in a frame");
        return Err(err);
    }
    if h.nbytes <= 0 {
        crate::trace_error!("Empty chunks cannot be stored in a frame");
        return Err(err);
    }
    Ok(NewChunk {
        bytes: &chunk[..cbytes],
        nbytes: h.nbytes as i64,
        special: h.special().filter(|s| index::special_offset(*s).is_some()),
        vl: h.is_vlblocks(),
    })
}

impl Frame {
    fn empty(storage: Storage, params: &FrameParams) -> Frame {
        Frame {
            storage,
            params: params.clone(),
            header_len: header::HEADER_NOMETA_LEN as u64,
            nbytes: 0,
            cbytes: 0,
            chunksize: -1,
            vl_blocks: false,
            metalayers: Vec::new(),
            vlmetalayers: Vec::new(),
            offsets: Vec::new(),
            off_len: 0,
            trailer_len: 0,
            frame_len: 0,
        }
    }

    /// Create an empty frame (written at once for File/Dir; nchunks 0, chunksize -1).
    pub fn create(loc: Location, params: &FrameParams, io: Arc<dyn Io>) -> Result<Frame> {
        check_params(params)?;
        let storage = match loc {
            Location::Memory => Storage::Memory(Vec::new()),
            Location::File { path, offset } => {
                // Make sure the file exists; an embedded frame keeps the bytes before it.
                let mode = if offset == 0 {
                    OpenMode::Create
                } else {
                    OpenMode::Append
                };
                drop(io.open(&path, mode)?);
                Storage::File { path, offset, io }
            }
            Location::Dir(path) => {
                sframe::create_dir(&path, io.as_ref())?;
                Storage::Dir { path, io }
            }
        };
        let mut f = Frame::empty(storage, params);
        f.write_tail(OffsetsChunk::Encode)?;
        Ok(f)
    }

    /// Open an existing frame (File: validated per FRAME.md §11; Dir: `chunks.b2frame`).
    /// `Location::Memory` is refused: use [`Frame::from_bytes`].
    pub fn open(loc: Location, io: Arc<dyn Io>) -> Result<Frame> {
        match loc {
            Location::Memory => {
                crate::trace_error!("An in-memory frame is opened with Frame::from_bytes");
                Err(Error::InvalidParam)
            }
            Location::File { path, offset } => {
                let storage = Storage::File { path, offset, io };
                cframe::load(storage)
            }
            Location::Dir(path) => {
                let storage = Storage::Dir { path, io };
                cframe::load(storage)
            }
        }
    }

    /// Open the frame at `path`: a sparse frame if it is a directory, else a contiguous frame
    /// starting at `offset` of the file.
    pub fn open_path(path: &Path, offset: u64, io: Arc<dyn Io>) -> Result<Frame> {
        let md = std::fs::metadata(path).map_err(|_| {
            crate::trace_error!("Cannot get information about the path {}", path.display());
            Error::FileOpen
        })?;
        if md.is_dir() {
            if offset != 0 {
                crate::trace_error!("Sparse frames cannot be opened at an offset");
                return Err(Error::InvalidParam);
            }
            Frame::open(Location::Dir(path.to_path_buf()), io)
        } else {
            Frame::open(
                Location::File {
                    path: path.to_path_buf(),
                    offset,
                },
                io,
            )
        }
    }

    /// Parse a contiguous frame held in memory (taken over).
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Frame> {
        cframe::load(Storage::Memory(bytes))
    }

    /// Build an in-memory frame from whole chunks, as C-Blosc2 serialises an in-memory
    /// super-chunk: every chunk stored as it is (special ones included), `chunksize` the common
    /// chunk size or 0, the offsets chunk compressed with the default parameters.
    pub fn from_chunks(
        params: &FrameParams,
        chunks: &[&[u8]],
        metalayers: &[Metalayer],
        vlmetalayers: &[Metalayer],
    ) -> Result<Frame> {
        check_params(params)?;
        header::check_metalayers(metalayers)?;
        let mut f = Frame::empty(Storage::Memory(Vec::new()), params);
        f.metalayers = metalayers.to_vec();
        f.vlmetalayers = vlmetalayers.to_vec();
        let mut section = Vec::new();
        for (i, c) in chunks.iter().enumerate() {
            let nc = check_new_chunk(c, Error::ChunkAppend)?;
            if i == 0 {
                f.chunksize = nc.nbytes as i32;
                f.vl_blocks = nc.vl;
            } else {
                if nc.nbytes != f.chunksize as i64 {
                    f.chunksize = 0;
                }
                if nc.vl != f.vl_blocks {
                    crate::trace_error!("VL-block chunks cannot be mixed with regular chunks");
                    return Err(Error::ChunkAppend);
                }
            }
            f.offsets.push(section.len() as i64);
            section.extend_from_slice(nc.bytes);
            f.nbytes += nc.nbytes;
        }
        f.cbytes = section.len() as i64;
        let coff = if f.offsets.is_empty() {
            Vec::new()
        } else {
            index::encode_whole(&f.offsets)?
        };
        f.build_memory(section, coff)?;
        Ok(f)
    }

    /// The whole frame serialised as a contiguous frame (cframe), whatever the location.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        match &self.storage {
            Storage::Memory(v) => Ok(v.clone()),
            Storage::File { path, offset, io } => {
                let mut h = io.open(path, OpenMode::Read)?;
                let len = usize::try_from(self.frame_len).map_err(|_| Error::MemoryAlloc)?;
                let mut buf = vec![0u8; len];
                h.read_at(*offset, &mut buf)?;
                Ok(buf)
            }
            Storage::Dir { .. } => {
                let mut f = self.contiguous_copy()?;
                match std::mem::replace(&mut f.storage, Storage::Memory(Vec::new())) {
                    Storage::Memory(v) => Ok(v),
                    _ => Err(Error::Failure),
                }
            }
        }
    }

    /// The frame bytes of an in-memory frame (`None` for File/Dir frames).
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match &self.storage {
            Storage::Memory(v) => Some(v),
            _ => None,
        }
    }

    /// The frame serialised as a cframe, consuming the frame (no copy for in-memory frames).
    pub fn into_bytes(self) -> Result<Vec<u8>> {
        match self.storage {
            Storage::Memory(v) => Ok(v),
            _ => self.to_bytes(),
        }
    }

    /// Write a copy of this frame at `loc` (which must not be this frame's own location) and
    /// return it.
    pub fn copy_to(&self, loc: Location, io: Arc<dyn Io>) -> Result<Frame> {
        match loc {
            Location::Memory => Frame::from_bytes(self.to_bytes()?),
            Location::File { path, offset } => {
                let bytes = self.to_bytes()?;
                {
                    let mode = if offset == 0 {
                        OpenMode::Create
                    } else {
                        OpenMode::Append
                    };
                    let mut h = io.open(&path, mode)?;
                    h.write_at(offset, &bytes)?;
                    h.truncate(offset + bytes.len() as u64)?;
                }
                Frame::open(Location::File { path, offset }, io)
            }
            Location::Dir(path) => self.sparse_copy(path, io),
        }
    }

    /// Append a serialised contiguous frame to the end of the file at `path` (created if
    /// missing) and return the offset where it starts (C-Blosc2's
    /// `blosc2_schunk_append_file`).
    pub fn append_file(path: &Path, cframe: &[u8], io: &dyn Io) -> Result<u64> {
        let mut h = io.open(path, OpenMode::Append)?;
        let at = h.size()?;
        h.write_at(at, cframe)?;
        Ok(at)
    }

    /// Read the frame again from its storage (after another process changed it). A no-op for
    /// in-memory frames.
    pub fn refresh(&mut self) -> Result<()> {
        let storage = match &self.storage {
            Storage::Memory(_) => return Ok(()),
            Storage::File { path, offset, io } => Storage::File {
                path: path.clone(),
                offset: *offset,
                io: io.clone(),
            },
            Storage::Dir { path, io } => Storage::Dir {
                path: path.clone(),
                io: io.clone(),
            },
        };
        *self = cframe::load(storage)?;
        Ok(())
    }

    /// Where the frame lives.
    pub fn location(&self) -> Location {
        match &self.storage {
            Storage::Memory(_) => Location::Memory,
            Storage::File { path, offset, .. } => Location::File {
                path: path.clone(),
                offset: *offset,
            },
            Storage::Dir { path, .. } => Location::Dir(path.clone()),
        }
    }

    /// The I/O back-end of a File/Dir frame.
    pub fn io(&self) -> Option<&Arc<dyn Io>> {
        match &self.storage {
            Storage::Memory(_) => None,
            Storage::File { io, .. } | Storage::Dir { io, .. } => Some(io),
        }
    }

    /// Whether this is a sparse frame (directory).
    pub fn is_sparse(&self) -> bool {
        matches!(self.storage, Storage::Dir { .. })
    }

    /// Length of the frame in bytes (of the index file for sparse frames).
    pub fn len(&self) -> i64 {
        self.frame_len as i64
    }

    /// Whether the frame holds no data (no chunks).
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Length of the header (metalayers included).
    pub fn header_len(&self) -> i64 {
        self.header_len as i64
    }

    /// The super-chunk parameters of the header.
    pub fn params(&self) -> &FrameParams {
        &self.params
    }

    /// Replace the super-chunk parameters (rewrites the header).
    pub fn set_params(&mut self, p: &FrameParams) -> Result<()> {
        check_params(p)?;
        let old = std::mem::replace(&mut self.params, p.clone());
        if let Err(e) = self.write_tail(OffsetsChunk::Keep) {
            self.params = old;
            return Err(e);
        }
        Ok(())
    }

    /// Number of chunks.
    pub fn nchunks(&self) -> i64 {
        self.offsets.len() as i64
    }

    /// Total uncompressed size.
    pub fn nbytes(&self) -> i64 {
        self.nbytes
    }

    /// The header's `cbytes`: size of the stored chunks.
    pub fn cbytes(&self) -> i64 {
        self.cbytes
    }

    /// Uncompressed size of every chunk but possibly the last: -1 none yet, 0 variable.
    pub fn chunksize(&self) -> i32 {
        self.chunksize
    }

    /// Preset the chunk size of a frame without chunks (as a super-chunk created with a known
    /// chunk size does): the first chunks are then checked against it instead of defining it.
    pub fn set_chunksize(&mut self, chunksize: i32) -> Result<()> {
        if !self.offsets.is_empty() {
            crate::trace_error!("The chunk size can only be set before the first chunk");
            return Err(Error::InvalidParam);
        }
        if chunksize < -1 {
            return Err(Error::InvalidParam);
        }
        let old = std::mem::replace(&mut self.chunksize, chunksize);
        if let Err(e) = self.write_tail(OffsetsChunk::Keep) {
            self.chunksize = old;
            return Err(e);
        }
        Ok(())
    }

    /// Whether the frame holds VL-block chunks.
    pub fn vl_blocks(&self) -> bool {
        self.vl_blocks
    }

    /// The raw offsets table (special values included).
    pub fn offsets(&self) -> Result<Vec<i64>> {
        Ok(self.offsets.clone())
    }

    fn check_index(&self, n: i64, err: Error) -> Result<usize> {
        if n < 0 || n >= self.nchunks() {
            crate::trace_error!(
                "nchunk ({}) exceeds the number of chunks ({}) in frame",
                n,
                self.nchunks()
            );
            return Err(err);
        }
        Ok(n as usize)
    }

    /// Uncompressed size of the special chunk `n` (FRAME.md §5).
    fn special_nbytes(&self, n: usize) -> Result<i64> {
        if self.chunksize <= 0 {
            crate::trace_error!("A special chunk in a frame without a fixed chunk size");
            return Err(Error::InvalidHeader);
        }
        let cs = self.chunksize as i64;
        if n + 1 == self.offsets.len() && self.nbytes % cs != 0 {
            Ok(self.nbytes % cs)
        } else {
            Ok(cs)
        }
    }

    /// Build the chunk standing for the special offset of logical chunk `n`.
    fn special_chunk(&self, n: usize) -> Result<Vec<u8>> {
        let off = self.offsets[n];
        let special = index::special_of_offset(off).ok_or_else(|| {
            crate::trace_error!("Special value not recognized: {:#x}", off);
            Error::Data
        })?;
        let nbytes = self.special_nbytes(n)?;
        let params = CParams {
            typesize: self.params.typesize,
            blocksize: self.params.blocksize,
            ..CParams::default()
        };
        let mut buf = vec![0u8; EXTENDED_HEADER_LENGTH];
        let len = crate::chunk::special::special_chunk(
            &params,
            special,
            nbytes as usize,
            None,
            &mut buf,
        )?;
        buf.truncate(len);
        Ok(buf)
    }

    /// Logical chunk `n`: the stored chunk bytes, or a synthesised special chunk for a
    /// zeros/NaN/uninit offset (FRAME.md §5).
    pub fn get_chunk(&self, n: i64) -> Result<Cow<'_, [u8]>> {
        let i = self.check_index(n, Error::InvalidParam)?;
        let off = self.offsets[i];
        if off < 0 {
            return Ok(Cow::Owned(self.special_chunk(i)?));
        }
        match &self.storage {
            Storage::Memory(v) => {
                let (start, len) = self.stored_span(off, |pos, buf| {
                    let pos = usize::try_from(pos).map_err(|_| Error::ReadBuffer)?;
                    let src = v.get(pos..pos + buf.len()).ok_or(Error::ReadBuffer)?;
                    buf.copy_from_slice(src);
                    Ok(())
                })?;
                let start = start as usize;
                v.get(start..start + len)
                    .map(Cow::Borrowed)
                    .ok_or(Error::ReadBuffer)
            }
            Storage::File { path, offset, io } => {
                let mut h = io.open(path, OpenMode::Read)?;
                let (start, len) =
                    self.stored_span(off, |pos, buf| h.read_at(offset + pos, buf))?;
                let mut buf = vec![0u8; len];
                h.read_at(offset + start, &mut buf)?;
                Ok(Cow::Owned(buf))
            }
            Storage::Dir { path, io } => {
                Ok(Cow::Owned(sframe::read_chunk(path, io.as_ref(), off)?))
            }
        }
    }

    /// Where a stored chunk of a contiguous frame is: its position from the frame start and its
    /// length, checked against `cbytes`. `read` reads frame bytes.
    fn stored_span(
        &self,
        off: i64,
        mut read: impl FnMut(u64, &mut [u8]) -> Result<()>,
    ) -> Result<(u64, usize)> {
        if off < 0 || off > self.cbytes - EXTENDED_HEADER_LENGTH as i64 {
            crate::trace_error!("Chunk offset {} out of the chunks section", off);
            return Err(Error::InvalidHeader);
        }
        let pos = self.header_len + off as u64;
        let mut h = [0u8; EXTENDED_HEADER_LENGTH];
        read(pos, &mut h)?;
        let (_, cbytes, _) = Header::sizes(&h)?;
        if (cbytes as usize) < EXTENDED_HEADER_LENGTH || off + cbytes as i64 > self.cbytes {
            crate::trace_error!("Invalid chunk size {} in frame", cbytes);
            return Err(Error::InvalidHeader);
        }
        Ok((pos, cbytes as usize))
    }

    /// Uncompressed size of logical chunk `i`.
    fn chunk_nbytes(&self, i: usize) -> Result<i64> {
        if self.offsets[i] < 0 {
            return self.special_nbytes(i);
        }
        Ok(self.stored_sizes(i)?.0)
    }

    /// Uncompressed and compressed sizes of the stored logical chunk `i`, from its header only.
    fn stored_sizes(&self, i: usize) -> Result<(i64, i64)> {
        let off = self.offsets[i];
        let mut h = [0u8; EXTENDED_HEADER_LENGTH];
        match &self.storage {
            Storage::Memory(v) => {
                self.stored_span(off, |pos, buf| {
                    let pos = usize::try_from(pos).map_err(|_| Error::ReadBuffer)?;
                    let src = v.get(pos..pos + buf.len()).ok_or(Error::ReadBuffer)?;
                    buf.copy_from_slice(src);
                    Ok(())
                })?;
                let pos = (self.header_len + off as u64) as usize;
                h.copy_from_slice(
                    v.get(pos..pos + EXTENDED_HEADER_LENGTH)
                        .ok_or(Error::ReadBuffer)?,
                );
            }
            Storage::File { path, offset, io } => {
                let mut f = io.open(path, OpenMode::Read)?;
                let (pos, _) = self.stored_span(off, |pos, buf| f.read_at(offset + pos, buf))?;
                f.read_at(offset + pos, &mut h)?;
            }
            Storage::Dir { .. } => {
                let c = self.get_chunk(i as i64)?;
                h.copy_from_slice(c.get(..EXTENDED_HEADER_LENGTH).ok_or(Error::ReadBuffer)?);
            }
        }
        let (nbytes, cbytes, _) = Header::sizes(&h)?;
        Ok((nbytes as i64, cbytes as i64))
    }

    /// Check that `nc` can join this frame (VL-block chunks and regular chunks do not mix).
    fn check_kind(&mut self, nc: &NewChunk<'_>, err: Error) -> Result<()> {
        if nc.special.is_some() {
            return Ok(());
        }
        if self.offsets.is_empty() {
            self.vl_blocks = nc.vl;
        } else if nc.vl != self.vl_blocks {
            crate::trace_error!("VL-block chunks cannot be mixed with regular chunks in a frame");
            return Err(err);
        }
        Ok(())
    }

    /// Switch to variable chunk sizes, storing the special chunks as real chunks first (their
    /// sizes cannot be derived without a fixed chunk size).
    fn make_variable(&mut self) -> Result<()> {
        if self.chunksize == 0 {
            return Ok(());
        }
        for i in 0..self.offsets.len() {
            if self.offsets[i] < 0 {
                let c = self.special_chunk(i)?;
                self.offsets[i] = self.store_chunk(&c)?;
            }
        }
        self.chunksize = 0;
        Ok(())
    }

    /// Store the bytes of a new chunk (at the end of the chunks section, or in a new chunk
    /// file) and return its offset (or file number).
    fn store_chunk(&mut self, bytes: &[u8]) -> Result<i64> {
        let off = match &mut self.storage {
            Storage::Dir { path, io } => {
                let n = sframe::next_number(&self.offsets)?;
                sframe::write_chunk(path, io.as_ref(), n, bytes)?;
                n
            }
            _ => {
                let at = self.header_len + self.cbytes as u64;
                let mut b = cframe::open_bytes(&mut self.storage, OpenMode::ReadWrite)?;
                b.write_at(at, bytes)?;
                self.cbytes
            }
        };
        self.cbytes += bytes.len() as i64;
        Ok(off)
    }

    /// Whether logical chunk `i` is the only one referencing its stored bytes.
    fn sole_owner(&self, i: usize) -> bool {
        let off = self.offsets[i];
        off >= 0
            && !self
                .offsets
                .iter()
                .enumerate()
                .any(|(j, &o)| j != i && o == off)
    }

    /// Delete the chunk file of logical chunk `i` of a sparse frame, unless another logical
    /// chunk shares it.
    fn remove_chunk_file(&mut self, i: usize) -> Result<()> {
        if !self.sole_owner(i) {
            return Ok(());
        }
        if let Storage::Dir { path, io } = &self.storage {
            let off = self.offsets[i];
            let len = sframe::chunk_file_len(path, io.as_ref(), off)?;
            sframe::remove_chunk(path, off)?;
            self.cbytes = (self.cbytes - len as i64).max(0);
        }
        Ok(())
    }

    /// Replace the stored bytes of logical chunk `i` of a contiguous frame in place with `new`
    /// (or drop them for `None`), moving the rest of the chunks section, as C-Blosc2 does.
    /// Returns false (doing nothing) when the old bytes cannot be replaced in place.
    fn replace_in_place(&mut self, i: usize, new: Option<&[u8]>) -> Result<bool> {
        if !self.sole_owner(i) {
            return Ok(false);
        }
        let off = self.offsets[i];
        let old_len = self.stored_sizes(i)?.1;
        let old_end = off + old_len;
        if self.offsets.iter().any(|&o| o > off && o < old_end) {
            // Something points inside these bytes: leave them alone.
            return Ok(false);
        }
        let new_len = new.map_or(0, |c| c.len() as i64);
        let delta = new_len - old_len;
        let hl = self.header_len;
        let tail = (self.cbytes - old_end) as u64;
        {
            let mut b = cframe::open_bytes(&mut self.storage, OpenMode::ReadWrite)?;
            b.copy_within(hl + old_end as u64, hl + (off + new_len) as u64, tail)?;
            if let Some(c) = new {
                b.write_at(hl + off as u64, c)?;
            }
        }
        for o in self.offsets.iter_mut() {
            if *o > off {
                *o += delta;
            }
        }
        self.cbytes += delta;
        Ok(true)
    }

    /// Store `nc` for a new or updated slot, returning the offset value of the slot.
    fn place(&mut self, nc: &NewChunk<'_>) -> Result<i64> {
        if let Some(sp) = nc.special {
            if self.chunksize > 0 {
                if let Some(o) = index::special_offset(sp) {
                    return Ok(o);
                }
            }
        }
        self.store_chunk(nc.bytes)
    }

    /// Append a chunk; returns the new number of chunks.
    pub fn append_chunk(&mut self, chunk: &[u8]) -> Result<i64> {
        let nc = check_new_chunk(chunk, Error::ChunkAppend)?;
        let n = self.nchunks();
        self.insert_at(n, &nc, Error::ChunkAppend)
    }

    /// Insert a chunk before logical chunk `n` (`n == nchunks` appends); returns the new number
    /// of chunks.
    pub fn insert_chunk(&mut self, n: i64, chunk: &[u8]) -> Result<i64> {
        let nc = check_new_chunk(chunk, Error::ChunkInsert)?;
        if n < 0 || n > self.nchunks() {
            crate::trace_error!("Cannot insert at position {}", n);
            return Err(Error::InvalidParam);
        }
        self.insert_at(n, &nc, Error::ChunkInsert)
    }

    fn insert_at(&mut self, n: i64, nc: &NewChunk<'_>, err: Error) -> Result<i64> {
        if self.nchunks() + 1 > index::MAX_NCHUNKS {
            crate::trace_error!("Too many chunks for a frame");
            return Err(err);
        }
        self.check_kind(nc, err)?;
        let nchunks = self.nchunks();
        if self.chunksize < 0 || (nchunks == 0 && self.chunksize == 0) {
            self.chunksize = nc.nbytes as i32;
        } else if self.chunksize > 0 {
            // Fixed sizes hold while every chunk but the last is full. Like C-Blosc2, any
            // insertion after a short last chunk switches to variable sizes.
            let cs = self.chunksize as i64;
            let last_short = self.nbytes % cs != 0;
            let ok = !last_short
                && if n == nchunks {
                    nc.nbytes <= cs
                } else {
                    nc.nbytes == cs
                };
            if !ok {
                self.make_variable()?;
            }
        }
        let value = self.place(nc)?;
        self.offsets.insert(n as usize, value);
        self.nbytes += nc.nbytes;
        self.write_tail(OffsetsChunk::Encode)?;
        Ok(self.nchunks())
    }

    /// Replace logical chunk `n`; returns the number of chunks.
    pub fn update_chunk(&mut self, n: i64, chunk: &[u8]) -> Result<i64> {
        let nc = check_new_chunk(chunk, Error::ChunkUpdate)?;
        let i = self.check_index(n, Error::InvalidParam)?;
        let nchunks = self.offsets.len();
        if nchunks == 1 {
            self.vl_blocks = if nc.special.is_some() {
                self.vl_blocks
            } else {
                nc.vl
            };
        } else {
            self.check_kind(&nc, Error::ChunkUpdate)?;
        }
        let old_nbytes = self.chunk_nbytes(i)?;
        if self.chunksize > 0 {
            let cs = self.chunksize as i64;
            let ok = if nchunks == 1 {
                true
            } else if i + 1 == nchunks {
                nc.nbytes <= cs
            } else {
                nc.nbytes == cs
            };
            if !ok {
                self.make_variable()?;
            } else if nchunks == 1 {
                self.chunksize = nc.nbytes as i32;
            }
        }
        let old = self.offsets[i];
        let special = nc
            .special
            .filter(|_| self.chunksize > 0)
            .and_then(index::special_offset);
        let value = match &self.storage {
            Storage::Dir { path, io } => match (old >= 0, special) {
                // A sparse frame rewrites the same chunk file.
                (true, None) => {
                    let old_len = sframe::chunk_file_len(path, io.as_ref(), old)?;
                    sframe::write_chunk(path, io.as_ref(), old, nc.bytes)?;
                    self.cbytes += nc.bytes.len() as i64 - old_len as i64;
                    old
                }
                _ => {
                    self.remove_chunk_file(i)?;
                    // The slot must not count as "in use" when a new file number is chosen.
                    self.offsets[i] = -1;
                    match special {
                        Some(code) => code,
                        None => self.store_chunk(nc.bytes)?,
                    }
                }
            },
            _ => {
                let new = if special.is_some() {
                    None
                } else {
                    Some(nc.bytes)
                };
                if old >= 0 && self.replace_in_place(i, new)? {
                    special.unwrap_or(old)
                } else {
                    match special {
                        Some(code) => code,
                        None => self.store_chunk(nc.bytes)?,
                    }
                }
            }
        };
        self.offsets[i] = value;
        self.nbytes += nc.nbytes - old_nbytes;
        self.write_tail(OffsetsChunk::Encode)?;
        Ok(self.nchunks())
    }

    /// Delete logical chunk `n`; returns the new number of chunks.
    pub fn delete_chunk(&mut self, n: i64) -> Result<i64> {
        let i = self.check_index(n, Error::InvalidParam)?;
        let old_nbytes = self.chunk_nbytes(i)?;
        // A sparse frame deletes the chunk file; a contiguous one leaves the bytes unreferenced
        // (as C-Blosc2 does).
        if self.is_sparse() {
            self.remove_chunk_file(i)?;
        }
        self.offsets.remove(i);
        self.nbytes -= old_nbytes;
        if self.offsets.is_empty() {
            self.nbytes = 0;
            self.cbytes = 0;
        }
        self.write_tail(OffsetsChunk::Encode)?;
        Ok(self.nchunks())
    }

    /// Reorder the chunks: new chunk `i` is old chunk `order[i]` (a permutation).
    pub fn reorder_offsets(&mut self, order: &[i64]) -> Result<()> {
        let n = self.offsets.len();
        let mut seen = vec![false; n];
        if order.len() != n {
            crate::trace_error!("The order must have one entry per chunk");
            return Err(Error::InvalidParam);
        }
        for &o in order {
            if o < 0 || o as usize >= n || seen[o as usize] {
                crate::trace_error!("The order is not a permutation of the chunks");
                return Err(Error::InvalidParam);
            }
            seen[o as usize] = true;
        }
        if self.chunksize > 0
            && n > 0
            && self.nbytes % self.chunksize as i64 != 0
            && order[n - 1] as usize != n - 1
        {
            // The short last chunk moves: sizes become variable.
            self.make_variable()?;
        }
        self.offsets = order.iter().map(|&o| self.offsets[o as usize]).collect();
        self.write_tail(OffsetsChunk::Encode)
    }

    /// Fill an empty frame with `nitems` items of a special value (zeros, NaN or uninit) in
    /// chunks of `chunksize` bytes, storing only a run-of-value offsets chunk (C-Blosc2's fast
    /// path of `blosc2_schunk_fill_special`). Returns the frame length.
    pub fn fill_special(&mut self, nitems: i64, special: Special, chunksize: i32) -> Result<i64> {
        let code = index::special_offset(special).ok_or_else(|| {
            crate::trace_error!("Only zeros, NaNs or non-initialized values are supported");
            Error::FrameSpecial
        })?;
        if nitems < 0 {
            return Err(Error::InvalidParam);
        }
        if nitems == 0 {
            return Ok(self.len());
        }
        if self.nbytes > 0 || self.cbytes > 0 || !self.offsets.is_empty() {
            crate::trace_error!("Filling with special values only works on empty frames");
            return Err(Error::FrameSpecial);
        }
        let typesize = self.params.typesize as i64;
        let chunkitems = chunksize as i64 / typesize;
        if chunkitems <= 0 {
            crate::trace_error!("chunksize must be >= typesize for a special fill");
            return Err(Error::FrameSpecial);
        }
        let nchunks = nitems / chunkitems + i64::from(nitems % chunkitems != 0);
        let nbytes = nitems.checked_mul(typesize).ok_or(Error::FrameSpecial)?;
        if nchunks > index::MAX_NCHUNKS {
            crate::trace_error!("nitems is too large; try increasing the chunksize");
            return Err(Error::FrameSpecial);
        }
        let coff = index::encode_repeated(code, nchunks)?;
        // The super-chunk blocksize becomes the one of a sample special chunk.
        let sample_params = CParams {
            blocksize: self.params.blocksize,
            ..self.params.to_cparams()
        };
        let mut sample = [0u8; EXTENDED_HEADER_LENGTH];
        let chunk_nbytes = (chunkitems * typesize) as usize;
        crate::chunk::special::special_chunk(
            &sample_params,
            special,
            chunk_nbytes,
            None,
            &mut sample,
        )
        .map_err(|_| Error::FrameSpecial)?;
        let (_, _, blocksize) = Header::sizes(&sample)?;
        let old = (self.params.blocksize, self.chunksize, self.nbytes);
        self.params.blocksize = blocksize;
        self.chunksize = chunk_nbytes as i32;
        self.nbytes = nbytes;
        self.offsets = vec![code; nchunks as usize];
        if let Err(e) = self.write_tail(OffsetsChunk::Given(coff)) {
            (self.params.blocksize, self.chunksize, self.nbytes) = old;
            self.offsets.clear();
            return Err(e);
        }
        Ok(self.len())
    }

    /// The fixed-size metalayers (header).
    pub fn metalayers(&self) -> &[Metalayer] {
        &self.metalayers
    }

    /// Add a metalayer (only before the first chunk); returns its index.
    pub fn add_metalayer(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        header::check_name(name)?;
        if self.metalayers.len() >= MAX_METALAYERS {
            crate::trace_error!("Number of metalayers exceeded");
            return Err(Error::InvalidParam);
        }
        if self.metalayers.iter().any(|m| m.name == name) {
            crate::trace_error!("Metalayer \"{}\" already exists", name);
            return Err(Error::InvalidParam);
        }
        if !self.offsets.is_empty() || self.cbytes > 0 {
            crate::trace_error!("New metalayers cannot be added after data has been appended");
            return Err(Error::InvalidParam);
        }
        self.metalayers.push(Metalayer {
            name: name.to_string(),
            content: content.to_vec(),
        });
        if let Err(e) = self.write_tail(OffsetsChunk::Keep) {
            self.metalayers.pop();
            return Err(e);
        }
        Ok(self.metalayers.len() - 1)
    }

    /// Overwrite the start of metalayer `idx` with `content`, which may not be longer than the
    /// existing content (the header cannot change size; a shorter content keeps the old length
    /// and the trailing old bytes, as C-Blosc2 does).
    pub fn update_metalayer(&mut self, idx: usize, content: &[u8]) -> Result<()> {
        let m = self
            .metalayers
            .get_mut(idx)
            .ok_or(Error::MetalayerNotFound)?;
        if content.len() > m.content.len() {
            crate::trace_error!(
                "`content_len` cannot exceed the existing size of {} bytes",
                m.content.len()
            );
            return Err(Error::InvalidParam);
        }
        let old = m.content.clone();
        m.content[..content.len()].copy_from_slice(content);
        if let Err(e) = self.write_tail(OffsetsChunk::Keep) {
            self.metalayers[idx].content = old;
            return Err(e);
        }
        Ok(())
    }

    /// The variable-length metalayers (trailer); `content` is the stored Blosc chunk.
    pub fn vlmetalayers(&self) -> &[Metalayer] {
        &self.vlmetalayers
    }

    /// Add or replace the vlmetalayer `name` with `chunk` (a Blosc chunk); returns its index.
    pub fn set_vlmetalayer(&mut self, name: &str, chunk: &[u8]) -> Result<usize> {
        header::check_name(name)?;
        let old = self.vlmetalayers.clone();
        let idx = match self.vlmetalayers.iter().position(|m| m.name == name) {
            Some(i) => {
                self.vlmetalayers[i].content = chunk.to_vec();
                i
            }
            None => {
                if self.vlmetalayers.len() >= MAX_VLMETALAYERS_WRITE {
                    crate::trace_error!(
                        "Too many vlmetalayers (at most {})",
                        MAX_VLMETALAYERS_WRITE
                    );
                    return Err(Error::InvalidParam);
                }
                self.vlmetalayers.push(Metalayer {
                    name: name.to_string(),
                    content: chunk.to_vec(),
                });
                self.vlmetalayers.len() - 1
            }
        };
        if let Err(e) = self.write_tail(OffsetsChunk::Keep) {
            self.vlmetalayers = old;
            return Err(e);
        }
        Ok(idx)
    }

    /// Delete the vlmetalayer `name`; returns the number of vlmetalayers left.
    pub fn delete_vlmetalayer(&mut self, name: &str) -> Result<usize> {
        let i = self
            .vlmetalayers
            .iter()
            .position(|m| m.name == name)
            .ok_or_else(|| {
                crate::trace_error!("User vlmetalayer \"{}\" not found", name);
                Error::NotFound
            })?;
        let removed = self.vlmetalayers.remove(i);
        if let Err(e) = self.write_tail(OffsetsChunk::Keep) {
            self.vlmetalayers.insert(i, removed);
            return Err(e);
        }
        Ok(self.vlmetalayers.len())
    }

    fn fixed_header(&self, frame_len: u64) -> FixedHeader {
        FixedHeader {
            header_len: 0,
            frame_len: frame_len as i64,
            frame_type: if self.is_sparse() {
                header::TYPE_DIRECTORY
            } else {
                header::TYPE_CONTIGUOUS
            },
            nbytes: self.nbytes,
            cbytes: self.cbytes,
            chunksize: self.chunksize,
            vl_blocks: self.vl_blocks,
            has_vlmeta: !self.vlmetalayers.is_empty(),
            params: self.params.clone(),
        }
    }
}

fn check_params(p: &FrameParams) -> Result<()> {
    if p.typesize <= 0 {
        crate::trace_error!("`typesize` must be positive");
        return Err(Error::InvalidParam);
    }
    if p.clevel > 9 {
        crate::trace_error!("`clevel` must be between 0 and 9");
        return Err(Error::InvalidParam);
    }
    if p.blocksize < 0 {
        crate::trace_error!("`blocksize` cannot be negative");
        return Err(Error::InvalidParam);
    }
    Ok(())
}
