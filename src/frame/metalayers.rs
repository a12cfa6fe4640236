//! Metalayers (header, fixed size) and vlmetalayers (trailer, any size) of a frame
//! (FRAME.md §3, §6, §7).

use super::LockMode;
use super::{header, Frame, Metalayer, OffsetsChunk, MAX_METALAYERS, MAX_VLMETALAYERS_WRITE};
use crate::error::{Error, Result};

impl Frame {
    /// Add a fixed-size metalayer (under the exclusive frame lock when locking is
    /// on; the unlocked variant has the details).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    ///
    /// let mut frame = Frame::create(Location::Memory, &FrameParams::default(), Arc::new(StdIo)).unwrap();
    /// assert_eq!(frame.add_metalayer("a", b"1").unwrap(), 0);
    /// assert_eq!(frame.add_metalayer("b", b"2").unwrap(), 1);
    /// assert!(frame.add_metalayer("a", b"again").is_err());
    /// ```
    pub fn add_metalayer(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        self.locked(LockMode::Exclusive, |f| {
            f.add_metalayer_unlocked(name, content)
        })
    }

    /// Update metalayer `idx` (under the exclusive frame lock when locking is
    /// on; the unlocked variant has the details).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    ///
    /// let mut frame = Frame::create(Location::Memory, &FrameParams::default(), Arc::new(StdIo)).unwrap();
    /// let i = frame.add_metalayer("version", b"v1").unwrap();
    /// frame.update_metalayer(i, b"v2").unwrap();
    /// assert_eq!(frame.metalayers()[0].content, b"v2");
    /// // the content cannot grow
    /// assert!(frame.update_metalayer(i, b"v100").is_err());
    /// ```
    pub fn update_metalayer(&mut self, idx: usize, content: &[u8]) -> Result<()> {
        self.locked(LockMode::Exclusive, |f| {
            f.update_metalayer_unlocked(idx, content)
        })
    }

    /// Add or replace a variable-length metalayer (under the exclusive frame lock when locking is
    /// on; the unlocked variant has the details).
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// # use b2rs::{chunk, CParams, DParams};
    /// #
    /// # // an in-memory frame holding 3 chunks of 1000 bytes: 1s, 2s, 3s
    /// # let cparams = CParams { typesize: 1, ..CParams::default() };
    /// # let params = FrameParams::from_cparams(&cparams, 1);
    /// # let chunk_of = |b: u8| {
    /// #     let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
    /// #     let n = chunk::compress(&cparams, &[b; 1000], &mut buf).unwrap();
    /// #     buf.truncate(n);
    /// #     buf
    /// # };
    /// # let mut frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// # for b in 1..=3 {
    /// #     frame.append_chunk(&chunk_of(b)).unwrap();
    /// # }
    /// # let first_byte = |frame: &Frame, n: i64| {
    /// #     let mut out = vec![0u8; 1000];
    /// #     chunk::decompress(&DParams::default(), &frame.get_chunk(n).unwrap(), &mut out, None).unwrap();
    /// #     out[0]
    /// # };
    /// let stored = chunk_of(5); // a vlmetalayer is stored as a compressed chunk
    /// assert_eq!(frame.set_vlmetalayer("extra", &stored).unwrap(), 0);
    /// assert_eq!(frame.vlmetalayers()[0].content, stored);
    /// ```
    pub fn set_vlmetalayer(&mut self, name: &str, chunk: &[u8]) -> Result<usize> {
        self.locked(LockMode::Exclusive, |f| {
            f.set_vlmetalayer_unlocked(name, chunk)
        })
    }

    /// Delete a variable-length metalayer (under the exclusive frame lock when locking is
    /// on; the unlocked variant has the details).
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// # use b2rs::{chunk, CParams, DParams};
    /// #
    /// # // an in-memory frame holding 3 chunks of 1000 bytes: 1s, 2s, 3s
    /// # let cparams = CParams { typesize: 1, ..CParams::default() };
    /// # let params = FrameParams::from_cparams(&cparams, 1);
    /// # let chunk_of = |b: u8| {
    /// #     let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
    /// #     let n = chunk::compress(&cparams, &[b; 1000], &mut buf).unwrap();
    /// #     buf.truncate(n);
    /// #     buf
    /// # };
    /// # let mut frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// # for b in 1..=3 {
    /// #     frame.append_chunk(&chunk_of(b)).unwrap();
    /// # }
    /// # let first_byte = |frame: &Frame, n: i64| {
    /// #     let mut out = vec![0u8; 1000];
    /// #     chunk::decompress(&DParams::default(), &frame.get_chunk(n).unwrap(), &mut out, None).unwrap();
    /// #     out[0]
    /// # };
    /// frame.set_vlmetalayer("a", &chunk_of(5)).unwrap();
    /// frame.set_vlmetalayer("b", &chunk_of(6)).unwrap();
    /// assert_eq!(frame.delete_vlmetalayer("a").unwrap(), 1);
    /// assert_eq!(frame.vlmetalayers()[0].name, "b");
    /// assert!(frame.delete_vlmetalayer("a").is_err());
    /// ```
    pub fn delete_vlmetalayer(&mut self, name: &str) -> Result<usize> {
        self.locked(LockMode::Exclusive, |f| f.delete_vlmetalayer_unlocked(name))
    }

    /// The fixed-size metalayers (header).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    ///
    /// let mut frame = Frame::create(Location::Memory, &FrameParams::default(), Arc::new(StdIo)).unwrap();
    /// frame.add_metalayer("m", b"content").unwrap();
    /// let back = Frame::from_bytes(frame.to_bytes().unwrap()).unwrap();
    /// assert_eq!(back.metalayers(), frame.metalayers());
    /// ```
    pub fn metalayers(&self) -> &[Metalayer] {
        &self.metalayers
    }

    /// Add a metalayer (only before the first chunk); returns its index.
    fn add_metalayer_unlocked(&mut self, name: &str, content: &[u8]) -> Result<usize> {
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
    fn update_metalayer_unlocked(&mut self, idx: usize, content: &[u8]) -> Result<()> {
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
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// # use b2rs::{chunk, CParams, DParams};
    /// #
    /// # // an in-memory frame holding 3 chunks of 1000 bytes: 1s, 2s, 3s
    /// # let cparams = CParams { typesize: 1, ..CParams::default() };
    /// # let params = FrameParams::from_cparams(&cparams, 1);
    /// # let chunk_of = |b: u8| {
    /// #     let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
    /// #     let n = chunk::compress(&cparams, &[b; 1000], &mut buf).unwrap();
    /// #     buf.truncate(n);
    /// #     buf
    /// # };
    /// # let mut frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// # for b in 1..=3 {
    /// #     frame.append_chunk(&chunk_of(b)).unwrap();
    /// # }
    /// # let first_byte = |frame: &Frame, n: i64| {
    /// #     let mut out = vec![0u8; 1000];
    /// #     chunk::decompress(&DParams::default(), &frame.get_chunk(n).unwrap(), &mut out, None).unwrap();
    /// #     out[0]
    /// # };
    /// frame.set_vlmetalayer("v", &chunk_of(5)).unwrap();
    /// let back = Frame::from_bytes(frame.to_bytes().unwrap()).unwrap();
    /// assert_eq!(back.vlmetalayers()[0].name, "v");
    /// ```
    pub fn vlmetalayers(&self) -> &[Metalayer] {
        &self.vlmetalayers
    }

    /// Replace the content of the existing vlmetalayer `name` with `chunk` without writing it:
    /// the frame's next change (which writes the trailer) records it. Returns the content it
    /// had, `None` (and changes nothing) when there is no such vlmetalayer. For a vlmetalayer
    /// that follows every change of the chunks (the chunk checksums of `crate::schunk`),
    /// written at once with the change.
    pub(crate) fn stage_vlmetalayer(&mut self, name: &str, chunk: Vec<u8>) -> Option<Vec<u8>> {
        let m = self.vlmetalayers.iter_mut().find(|m| m.name == name)?;
        Some(std::mem::replace(&mut m.content, chunk))
    }

    /// Add or replace the vlmetalayer `name` with `chunk` (a Blosc chunk); returns its index.
    fn set_vlmetalayer_unlocked(&mut self, name: &str, chunk: &[u8]) -> Result<usize> {
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
    fn delete_vlmetalayer_unlocked(&mut self, name: &str) -> Result<usize> {
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
}
