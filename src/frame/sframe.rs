//! Sparse frames (FRAME.md §9): a directory with the index file `chunks.b2frame` (a frame
//! header, the offsets chunk and the trailer) and one `NNNNNNNN.chunk` file per stored chunk,
//! named after its chunk number in 8 upper-case hexadecimal digits.

use super::io::{self, Io, OpenMode};
use super::offsets::{reserve_table, Offsets};
use super::{Frame, FrameParams, Location, OffsetsChunk};
use crate::chunk::header::{Header, EXTENDED_HEADER_LENGTH};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Name of the index file of a sparse frame.
pub const INDEX_NAME: &str = "chunks.b2frame";

/// The index file of the sparse frame in `dir`.
pub(super) fn index_path(dir: &Path) -> PathBuf {
    dir.join(INDEX_NAME)
}

/// The file of chunk number `n`.
pub(super) fn chunk_path(dir: &Path, n: i64) -> Result<PathBuf> {
    if !(0..=u32::MAX as i64).contains(&n) {
        crate::trace_error!("Invalid chunk file number {}", n);
        return Err(Error::InvalidHeader);
    }
    Ok(dir.join(format!("{:08X}.chunk", n)))
}

fn is_chunk_file_name(name: &str) -> bool {
    name.len() == 14 && name.ends_with(".chunk") && name[..8].bytes().all(|c| c.is_ascii_hexdigit())
}

/// Create the directory of a new sparse frame (removing the index and chunk files of a
/// previous one: on an object store after the new index is stored, so the old frame stays
/// readable until then) and an empty index file. Returns the first chunk file number the new
/// frame may use: 0, or on an object store ([`Io::deferred_removal`]) one past the largest
/// chunk file number found there, so no chunk object of the new frame overwrites one the
/// older index names.
pub(super) fn create_dir(dir: &Path, io: &dyn Io) -> Result<i64> {
    let mut base = 0;
    if let Some(files) = io.prepare_dir(dir)? {
        for p in files {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            let Some(name) = name else { continue };
            if is_chunk_file_name(&name) && io.deferred_removal() {
                let n = i64::from_str_radix(&name[..8], 16).unwrap_or(0);
                base = base.max(n + 1);
            }
            if name == INDEX_NAME || is_chunk_file_name(&name) {
                io.remove_after_flush(&p)?;
            }
        }
    }
    drop(io.open(&index_path(dir), OpenMode::Create)?);
    if base > u32::MAX as i64 / 2 {
        // (numbers run out: back to 0, the older frame is then not kept whole meanwhile)
        base = 0;
    }
    Ok(base)
}

/// The chunk stored in file number `n`.
pub(super) fn read_chunk(dir: &Path, io: &dyn Io, n: i64) -> Result<Vec<u8>> {
    let mut buf = io::read_file(io, &chunk_path(dir, n)?)?;
    if buf.len() < EXTENDED_HEADER_LENGTH {
        // (a chunk file emptied behind the frame, as C-Blosc2 reports it)
        crate::trace_error!("Cannot read chunk file {}: {} bytes", n, buf.len());
        return Err(Error::FileRead);
    }
    let (_, cbytes, _) = Header::sizes(&buf)?;
    if (cbytes as usize) < EXTENDED_HEADER_LENGTH || cbytes as usize > buf.len() {
        crate::trace_error!("Invalid chunk file {}", n);
        return Err(Error::InvalidHeader);
    }
    buf.truncate(cbytes as usize);
    Ok(buf)
}

/// Write chunk file number `n`.
pub(super) fn write_chunk(dir: &Path, io: &dyn Io, n: i64, bytes: &[u8]) -> Result<()> {
    io::write_file(io, &chunk_path(dir, n)?, bytes)
}

/// Size of chunk file number `n`.
pub(super) fn chunk_file_len(dir: &Path, io: &dyn Io, n: i64) -> Result<u64> {
    io.open(&chunk_path(dir, n)?, OpenMode::Read)?.size()
}

/// Delete chunk file number `n`.
pub(super) fn remove_chunk(dir: &Path, io: &dyn Io, n: i64) -> Result<()> {
    io.remove_after_flush(&chunk_path(dir, n)?)
}

/// The number for a new chunk file: the largest in use plus one.
pub(super) fn next_number(offsets: &[i64]) -> Result<i64> {
    let n = offsets
        .iter()
        .copied()
        .filter(|&o| o >= 0)
        .max()
        .map_or(0, |m| m + 1);
    if n > u32::MAX as i64 {
        crate::trace_error!("No chunk file number left");
        return Err(Error::ChunkAppend);
    }
    Ok(n)
}

impl Frame {
    /// A sparse copy of this frame in `dir`.
    pub(super) fn sparse_copy(&self, dir: PathBuf, io: Arc<dyn Io>) -> Result<Frame> {
        let params: FrameParams = self.params.clone();
        let mut f = Frame::create(Location::Dir(dir.clone()), &params, io.clone())?;
        f.metalayers = self.metalayers.clone();
        f.vlmetalayers = self.vlmetalayers.clone();
        let mut placed: HashMap<i64, i64> = HashMap::new();
        let mut table = reserve_table(self.offsets.len())?;
        for i in 0..self.offsets.len() {
            let o = self.offsets.get(i)?;
            if o < 0 {
                table.push(o);
                continue;
            }
            if let Some(&n) = placed.get(&o) {
                table.push(n);
                continue;
            }
            let c = self.get_chunk(i as i64)?;
            let n = f.next_file + placed.len() as i64;
            write_chunk(&dir, io.as_ref(), n, &c)?;
            f.cbytes += c.len() as i64;
            placed.insert(o, n);
            table.push(n);
        }
        f.next_file += placed.len() as i64;
        f.offsets = Offsets::from_table(table);
        f.nbytes = self.nbytes;
        f.chunksize = self.chunksize;
        f.vl_blocks = self.vl_blocks;
        f.write_tail(OffsetsChunk::Encode)?;
        Ok(f)
    }
}
