//! Keeping the public C struct of a super-chunk in sync with the core after every call:
//! counters, the `data[]` chunk pointers, metalayer copies, and the buffers C may free.

use super::*;
use core::ffi::c_char;

/// The fields of the public struct that callers may write and C-Blosc2 reads back, as this
/// library last wrote them (see [`SchunkHandle::pull`]).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Written {
    chunksize: i32,
    current_nchunk: i64,
    coding: Coding,
}

/// The coding fields of the public struct: what C-Blosc2 writes into a frame header, reports
/// in `blosc2_schunk_get_cparams` and uses for item offsets (`typesize`).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
struct Coding {
    compcode: u8,
    compcode_meta: u8,
    clevel: u8,
    splitmode: u8,
    use_dict: u8,
    typesize: i32,
    blocksize: i32,
    filters: [u8; 6],
    filters_meta: [u8; 6],
}

impl Coding {
    fn of(c: &blosc2_schunk) -> Coding {
        Coding {
            compcode: c.compcode,
            compcode_meta: c.compcode_meta,
            clevel: c.clevel,
            splitmode: c.splitmode,
            use_dict: c.use_dict,
            typesize: c.typesize,
            blocksize: c.blocksize,
            filters: c.filters,
            filters_meta: c.filters_meta,
        }
    }

    fn apply(self, p: &mut CParams) {
        p.compcode = self.compcode;
        p.compcode_meta = self.compcode_meta;
        p.clevel = self.clevel;
        p.splitmode = crate::params::SplitMode::from_i32(self.splitmode as i32);
        p.use_dict = self.use_dict != 0;
        p.typesize = self.typesize;
        p.blocksize = self.blocksize;
        p.filters = self.filters;
        p.filters_meta = self.filters_meta;
    }
}

impl SchunkHandle {
    /// Whether `p` points into the bytes of an in-memory frame (a chunk lent by
    /// `blosc2_schunk_get_chunk`), which must be copied rather than taken over.
    pub(super) fn lent(&self, p: *const u8) -> bool {
        let a = p as usize;
        // Chunks lent from a caller's frame buffer stay in it after a copy-on-write.
        if a >= self.cframe_owner && a - self.cframe_owner < self.cframe_len {
            return true;
        }
        if self.retired_frame.as_ptr_range().contains(&p) {
            return true;
        }
        match self.core.frame().and_then(|f| f.as_bytes()) {
            Some(b) => b.as_ptr_range().contains(&p),
            None => false,
        }
    }

    /// Whether the caller's storage describes an in-memory contiguous frame (`contiguous`
    /// set, no `urlpath`): C-Blosc2's to_buffer and to_file read these two fields, not
    /// the super-chunk's state, to choose between lending the frame and copying it.
    pub(crate) fn storage_is_memory_frame(&self) -> bool {
        // SAFETY: `storage` is NULL or the storage this handle allocated (callers write
        // its fields, never the pointer).
        unsafe { self.c.storage.as_ref() }
            .is_some_and(|st| st.contiguous != 0 && st.urlpath.is_null())
    }

    pub(super) fn c_ptr(&mut self) -> *mut blosc2_schunk {
        &mut self.c
    }

    /// Re-sync with the frame on disk when another handle changed it (counters, metalayers
    /// and their C mirrors), as C-Blosc2's data-access functions do.
    pub(crate) fn resync(&mut self) -> Result<(), Error> {
        if self.core.sync()? {
            self.rebuild_mirrors()?;
            self.sync();
        }
        Ok(())
    }

    /// Make an in-memory frame read its bytes from a `malloc`ed buffer (see
    /// `blosc2_schunk_to_buffer`); nothing to do when it already reads lent bytes.
    pub(crate) fn lend_frame_malloced(&mut self) -> crate::Result<()> {
        let Some(f) = self.core.frame_mut() else {
            return Ok(());
        };
        let kept = Arc::new(AtomicBool::new(false));
        let k = kept.clone();
        let old = f.relocate_memory(|b| {
            Ok(Box::new(crate::capi::frame::MallocedFrame::copy_of(b, k)?)
                as Box<dyn crate::frame::SharedBytes>)
        })?;
        if let Some(old) = old {
            self.retired_frame = old;
            self.lent_kept = Some(kept);
        }
        Ok(())
    }

    /// Bring the C struct in sync after a call: every mirror (metalayers, vlmetalayers, chunk
    /// pointers) when the core read the frame again because another handle changed it (any
    /// locked operation may do that), else the counters and the current chunk.
    pub(crate) fn sync(&mut self) {
        if !self.retired_frame.is_empty() && !self.core.frame().is_some_and(|f| f.is_lent()) {
            // the frame changed: what was lent from the bytes before is stale, as in C-Blosc2
            self.retired_frame = Vec::new();
        }
        if self.core.reloads() != self.seen_reloads {
            if let Err(e) = self.rebuild_mirrors() {
                crate::trace_error!("Cannot copy the metalayers of the super-chunk: {}", e);
                self.sync_counters();
            }
            return;
        }
        if self.core.checksums_tick() != self.seen_checksums {
            self.sync_checksums_mirror();
        }
        self.sync_counters();
    }

    /// Copy the chunk checksums' vlmetalayer (rewritten by the core at every change of the
    /// chunks) into its C mirror.
    fn sync_checksums_mirror(&mut self) {
        self.seen_checksums = self.core.checksums_tick();
        let name = crate::schunk::CHECKSUMS_VLMETA;
        let Ok(i) = self.core.vlmeta_exists(name) else {
            return;
        };
        let m = if i < self.c.nvlmetalayers.max(0) as usize {
            self.c.vlmetalayers[i]
        } else {
            ptr::null_mut()
        };
        // SAFETY: NULL or our own mirror of vlmetalayer `i` (a NUL-terminated malloc'ed name).
        let same = !m.is_null()
            && unsafe { core::ffi::CStr::from_ptr((*m).name) }.to_bytes() == name.as_bytes();
        if !same {
            if let Err(e) = self.rebuild_meta_mirrors() {
                crate::trace_error!("Cannot copy the metalayers of the super-chunk: {}", e);
            }
            self.mirrored_meta = Some(self.core.meta_stamp());
            return;
        }
        let stored = &self.core.vlmetalayers()[i].content;
        let copy = malloc_copy(stored);
        if copy.is_null() {
            crate::trace_error!("Cannot copy the chunk checksums of the super-chunk");
            return;
        }
        // SAFETY: our own mirror of vlmetalayer `i`, its content malloc'ed by us.
        unsafe {
            libc::free((*m).content as *mut c_void);
            (*m).content = copy;
            (*m).content_len = stored.len() as i32;
        }
    }

    /// Counters and the current chunk, also handed to the contexts' pre/postfilters.
    pub(super) fn sync_counters(&mut self) {
        let s = &self.core;
        self.c.nchunks = s.nchunks();
        self.c.nbytes = s.nbytes();
        self.c.cbytes = s.cbytes();
        self.c.chunksize = s.chunksize();
        self.c.flags2 = s.flags2();
        self.c.current_nchunk = s.current_nchunk();
        self.c.change_tick = s.change_tick();
        // Frame-backed super-chunks show a non-NULL (opaque) `frame`, as C-Blosc2 does.
        self.c.frame = if s.frame().is_some() {
            s as *const Schunk as *mut blosc2_frame
        } else {
            ptr::null_mut()
        };
        self.written.chunksize = self.c.chunksize;
        self.written.current_nchunk = self.c.current_nchunk;
    }

    /// Hand the core what the caller wrote into the public struct since this library last
    /// wrote it, before a call works on the super-chunk: C-Blosc2 keeps its state in that
    /// struct and reads these fields at its next call (python-blosc2 writes `chunksize` after
    /// `blosc2_schunk_new`, `current_nchunk` before compressing a chunk itself, and the coding
    /// fields with a new `cctx` when its parameters change). The decompression parameters are
    /// those of the context in `dctx` now (callers replace it, postfilter included), and the
    /// frame header records the thread counts of both contexts, as C-Blosc2's does.
    pub(crate) fn pull(&mut self) {
        if self.c.chunksize != self.written.chunksize {
            if let Err(e) = self.core.set_chunksize(self.c.chunksize) {
                crate::trace_error!("Cannot take the chunk size {}: {}", self.c.chunksize, e);
            }
            self.written.chunksize = self.c.chunksize;
        }
        if self.c.current_nchunk != self.written.current_nchunk {
            self.core.set_current_nchunk(self.c.current_nchunk);
            self.written.current_nchunk = self.c.current_nchunk;
        }
        let coding = Coding::of(&self.c);
        // SAFETY: `cctx` is NULL or a live context (the caller's contract for the struct).
        let cthreads = match unsafe { Context::from_c_ref(self.c.cctx) }.map(|c| &c.kind) {
            Some(Kind::Compress(p)) => p.nthreads,
            _ => self.core.cparams().nthreads,
        };
        if coding != self.written.coding || cthreads != self.core.cparams().nthreads {
            let mut p = self.core.cparams().clone();
            coding.apply(&mut p);
            p.nthreads = cthreads;
            self.core.set_cparams(p);
            self.written.coding = coding;
        }
        let dp = self.cur_dparams();
        if !same_decoding(self.core.dparams(), &dp) {
            self.core.set_dparams(dp);
        }
    }

    /// Write the coding fields of the public struct from `p` (at creation; afterwards they are
    /// the caller's, as in C-Blosc2).
    pub(super) fn write_coding(&mut self, p: &blosc2_cparams) {
        let c = &mut self.c;
        c.compcode = p.compcode;
        c.compcode_meta = p.compcode_meta;
        c.clevel = p.clevel;
        c.splitmode = p.splitmode as u8;
        c.typesize = p.typesize;
        c.blocksize = p.blocksize;
        c.use_dict = p.use_dict as u8;
        c.filters = p.filters;
        c.filters_meta = p.filters_meta;
        self.written.coding = Coding::of(&self.c);
    }

    /// Set the public `blocksize` (what C-Blosc2 reports for a super-chunk made from a frame).
    pub(crate) fn write_blocksize(&mut self, blocksize: i32) {
        self.c.blocksize = blocksize;
        self.written.coding = Coding::of(&self.c);
    }

    /// Make room for `n` chunk pointers in `c.data`.
    pub(super) fn reserve_data(&mut self, n: usize) -> Result<(), Error> {
        if !self.core.is_memory() || n <= self.data_cap {
            return Ok(());
        }
        let per_page = 4096 / core::mem::size_of::<*mut u8>();
        let mut cap = self.data_cap.max(per_page);
        while cap < n {
            cap = cap.checked_mul(2).ok_or(Error::MemoryAlloc)?;
        }
        let bytes = cap
            .checked_mul(core::mem::size_of::<*mut u8>())
            .ok_or(Error::MemoryAlloc)?;
        // SAFETY: `c.data` is NULL or our own malloc'ed array.
        let p = unsafe { libc::realloc(self.c.data as *mut c_void, bytes) } as *mut *mut u8;
        if p.is_null() {
            crate::trace_error!("Cannot grow the chunk pointer array");
            return Err(Error::MemoryAlloc);
        }
        self.c.data = p;
        self.c.data_len = bytes;
        self.data_cap = cap;
        Ok(())
    }

    /// Point `c.data[from..nchunks]` at the chunks (in-memory super-chunks).
    pub(super) fn write_data(&mut self, from: usize, to: usize) {
        if !self.core.is_memory() {
            return;
        }
        let n = (self.core.nchunks() as usize).min(to);
        if self.reserve_data(n).is_err() {
            return;
        }
        for i in from..n {
            let p = self
                .core
                .stored_chunk_addr(i)
                .map_or(ptr::null_mut(), |b| b as *mut u8);
            // SAFETY: `i < n <= data_cap`.
            unsafe { *self.c.data.add(i) = p };
        }
    }

    pub(super) fn write_data_from(&mut self, from: usize) {
        self.write_data(from, usize::MAX);
    }

    /// Rebuild every C-side copy (chunk pointers, metalayers) from the core: those whose
    /// stamps changed since they were last written.
    pub(crate) fn rebuild_mirrors(&mut self) -> Result<(), Error> {
        self.seen_reloads = self.core.reloads();
        let chunks = self.core.chunks_stamp();
        if self.mirrored_chunks != Some(chunks) || chunks.is_none() {
            self.reserve_data(self.core.nchunks() as usize)?;
            self.write_data_from(0);
            self.mirrored_chunks = Some(chunks);
        }
        let meta = self.core.meta_stamp();
        if self.mirrored_meta != Some(meta) {
            self.mirrored_meta = None;
            self.rebuild_meta_mirrors()?;
            self.mirrored_meta = Some(meta);
        }
        self.sync();
        Ok(())
    }

    /// Rebuild the C metalayers and vlmetalayers from the core.
    pub(super) fn rebuild_meta_mirrors(&mut self) -> Result<(), Error> {
        // SAFETY: the metalayer arrays hold NULL or our own malloc'ed entries.
        unsafe {
            for i in 0..self.c.nmetalayers as usize {
                free_c_meta(self.c.metalayers[i]);
                self.c.metalayers[i] = ptr::null_mut();
            }
            for i in 0..self.c.nvlmetalayers.max(0) as usize {
                free_c_meta(self.c.vlmetalayers[i]);
                self.c.vlmetalayers[i] = ptr::null_mut();
            }
            self.c.nmetalayers = 0;
            self.c.nvlmetalayers = 0;
            for (i, m) in self.core.metalayers().iter().enumerate() {
                let p = new_c_meta(&m.name, &m.content);
                if p.is_null() {
                    return Err(Error::MemoryAlloc);
                }
                self.c.metalayers[i] = p;
                self.c.nmetalayers = i as u16 + 1;
            }
            for (i, m) in self.core.vlmetalayers().iter().enumerate() {
                let p = new_c_meta(&m.name, &m.content);
                if p.is_null() {
                    return Err(Error::MemoryAlloc);
                }
                self.c.vlmetalayers[i] = p;
                self.c.nvlmetalayers = i as i16 + 1;
            }
        }
        Ok(())
    }

    /// The compression parameters of the context currently in `c.cctx` (callers may replace
    /// it), else the super-chunk's own.
    pub(crate) fn cur_cparams(&self) -> CParams {
        // SAFETY: `cctx` is NULL or a live context.
        match unsafe { Context::from_c_ref(self.c.cctx) }.map(|c| &c.kind) {
            Some(Kind::Compress(p)) => self.core.plugin_cparams(p),
            _ => self.core.cparams().clone(),
        }
    }

    /// [`Self::cur_cparams`] with the blocksize the context last used, as C-Blosc2 reads
    /// `cctx->blocksize` for a copy of the super-chunk and its frame header.
    pub(crate) fn cctx_cparams(&self) -> CParams {
        let mut p = self.cur_cparams();
        // SAFETY: `cctx` is NULL or a live context.
        if let Some(c) =
            unsafe { Context::from_c_ref(self.c.cctx) }.filter(|c| c.last_blocksize > 0)
        {
            p.blocksize = c.last_blocksize;
        }
        p
    }

    /// The decompression parameters of the context currently in `c.dctx`.
    pub(crate) fn cur_dparams(&self) -> DParams {
        // SAFETY: `dctx` is NULL or a live context.
        match unsafe { Context::from_c_ref(self.c.dctx) }.map(|c| &c.kind) {
            Some(Kind::Decompress(p)) => {
                let mut p = p.clone();
                p.b2nd = self.core.nd_meta().cloned();
                p.schunk_typesize = Some(self.core.typesize());
                p
            }
            _ => self.core.dparams().clone(),
        }
    }

    /// The block mask set on `c.dctx` with `blosc2_set_maskout` (consumed).
    pub(super) fn take_maskout(&mut self) -> Option<Vec<bool>> {
        // SAFETY: `dctx` is NULL or a live context.
        unsafe { Context::from_c(self.c.dctx) }.and_then(|c| c.maskout.take())
    }
}

/// A `malloc`ed `blosc2_metalayer` with copies of `name` and `content` (NULL when out of
/// memory).
pub(crate) fn new_c_meta(name: &str, content: &[u8]) -> *mut blosc2_metalayer {
    let mut n = Vec::with_capacity(name.len() + 1);
    n.extend_from_slice(name.as_bytes());
    n.push(0);
    let cname = malloc_copy(&n) as *mut c_char;
    let ccontent = malloc_copy(content);
    // SAFETY: a C allocation of one struct, written once.
    unsafe {
        let m = libc::malloc(core::mem::size_of::<blosc2_metalayer>()) as *mut blosc2_metalayer;
        if m.is_null() || cname.is_null() || ccontent.is_null() {
            libc::free(m as *mut c_void);
            libc::free(cname as *mut c_void);
            libc::free(ccontent as *mut c_void);
            return ptr::null_mut();
        }
        m.write(blosc2_metalayer {
            name: cname,
            content: ccontent,
            content_len: content.len() as i32,
        });
        m
    }
}

/// Free a metalayer made by [`new_c_meta`] (NULL is ignored).
///
/// # Safety
/// `m` must be NULL or a metalayer whose pointers were `malloc`ed.
pub(crate) unsafe fn free_c_meta(m: *mut blosc2_metalayer) {
    if m.is_null() {
        return;
    }
    // SAFETY: the caller guarantees the allocations.
    unsafe {
        libc::free((*m).name as *mut c_void);
        libc::free((*m).content as *mut c_void);
        libc::free(m as *mut c_void);
    }
}

/// Whether `a` and `b` decompress the same way (threads, typesize, owner, the same postfilter).
fn same_decoding(a: &DParams, b: &DParams) -> bool {
    a.nthreads == b.nthreads
        && a.typesize == b.typesize
        && a.owner == b.owner
        && match (&a.postfilter, &b.postfilter) {
            (None, None) => true,
            (Some(x), Some(y)) => Arc::ptr_eq(x, y),
            _ => false,
        }
}
