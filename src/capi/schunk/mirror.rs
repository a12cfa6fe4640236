//! Keeping the public C struct of a super-chunk in sync with the core after every call:
//! counters, the `data[]` chunk pointers, metalayer copies, and the buffers C may free.

use super::*;
use core::ffi::c_char;

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
        self.sync_counters();
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
        let cur = s.current_nchunk();
        // SAFETY: the context pointers are NULL or live contexts owned by this super-chunk.
        unsafe {
            if let Some(ctx) = Context::from_c(self.c.cctx) {
                if let Kind::Compress(p) = &mut ctx.kind {
                    p.nchunk = cur;
                }
            }
            if let Some(ctx) = Context::from_c(self.c.dctx) {
                if let Kind::Decompress(p) = &mut ctx.kind {
                    p.nchunk = cur;
                }
            }
        }
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
