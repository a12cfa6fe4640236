//! A small cache of remote bytes: the sizes of the objects seen and aligned blocks of them,
//! least recently used first out. Shared by every handle (and thread) of a [`super::RemoteIo`],
//! so the frame header, trailer and index pieces are fetched once, not at every operation.
//! Each object's blocks are of one version: the ETag of the reply that gave its size (when
//! the server sends ETags); a block is handed out and kept only for that version.

use std::collections::HashMap;
use std::sync::Arc;

/// The block size: a small read fetches the aligned blocks around it.
pub(super) const BLOCK: u64 = 64 * 1024;

struct Obj {
    size: u64,
    etag: Option<String>,
    blocks: HashMap<u64, (Arc<[u8]>, u64)>,
}

/// Sizes and blocks of remote objects, by URL.
pub(super) struct Cache {
    objects: HashMap<String, Obj>,
    nblocks: usize,
    capacity: usize,
    tick: u64,
}

impl Cache {
    /// A cache holding at most `capacity` blocks.
    pub(super) fn new(capacity: usize) -> Cache {
        Cache {
            objects: HashMap::new(),
            nblocks: 0,
            capacity: capacity.max(1),
            tick: 0,
        }
    }

    /// The known size and ETag of `url`.
    pub(super) fn size(&self, url: &str) -> Option<(u64, Option<String>)> {
        self.objects.get(url).map(|o| (o.size, o.etag.clone()))
    }

    /// Record the size and ETag of `url` (dropping its blocks if either changed).
    pub(super) fn set_size(&mut self, url: &str, size: u64, etag: Option<String>) {
        match self.objects.get_mut(url) {
            Some(o) if o.size == size && o.etag == etag => {}
            Some(o) => {
                self.nblocks -= o.blocks.len();
                o.blocks.clear();
                o.size = size;
                o.etag = etag;
            }
            None => {
                self.objects.insert(
                    url.to_string(),
                    Obj {
                        size,
                        etag,
                        blocks: HashMap::new(),
                    },
                );
            }
        }
    }

    /// Block number `b` of the version `etag` of `url`, if held.
    pub(super) fn block(&mut self, url: &str, b: u64, etag: Option<&str>) -> Option<Arc<[u8]>> {
        self.tick += 1;
        let tick = self.tick;
        let o = self.objects.get_mut(url)?;
        if o.etag.as_deref() != etag {
            return None;
        }
        let e = o.blocks.get_mut(&b)?;
        e.1 = tick;
        Some(e.0.clone())
    }

    /// Keep block number `b` of the version `etag` of `url` (whose size must be known; a block
    /// of another version than the one recorded is not kept).
    pub(super) fn insert(&mut self, url: &str, b: u64, data: Arc<[u8]>, etag: Option<&str>) {
        self.tick += 1;
        let tick = self.tick;
        let Some(o) = self.objects.get_mut(url) else {
            return;
        };
        if o.etag.as_deref() != etag {
            return;
        }
        if o.blocks.insert(b, (data, tick)).is_none() {
            self.nblocks += 1;
        }
        while self.nblocks > self.capacity {
            self.evict();
        }
    }

    fn evict(&mut self) {
        let oldest = self
            .objects
            .iter()
            .flat_map(|(u, o)| o.blocks.iter().map(move |(b, e)| (e.1, u, *b)))
            .min();
        if let Some((_, u, b)) = oldest {
            let u = u.clone();
            if let Some(o) = self.objects.get_mut(&u) {
                o.blocks.remove(&b);
                self.nblocks -= 1;
            }
        }
    }

    /// Forget what is known of `url` if it is of the version `etag` (a read found it replaced):
    /// the next open reads its size and ETag again.
    pub(super) fn forget_version(&mut self, url: &str, etag: Option<&str>) {
        if self
            .objects
            .get(url)
            .is_some_and(|o| o.etag.as_deref() == etag)
        {
            if let Some(o) = self.objects.remove(url) {
                self.nblocks -= o.blocks.len();
            }
        }
    }

    /// Forget all that is known of `url` and of the objects below it (`url/...`).
    pub(super) fn forget(&mut self, url: &str) {
        let below = format!("{}/", url.trim_end_matches('/'));
        let gone: Vec<String> = self
            .objects
            .keys()
            .filter(|k| k.as_str() == url || k.starts_with(&below))
            .cloned()
            .collect();
        for k in gone {
            if let Some(o) = self.objects.remove(&k) {
                self.nblocks -= o.blocks.len();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru() {
        let mut c = Cache::new(2);
        c.set_size("u", 3 * BLOCK, None);
        for b in 0..3 {
            c.insert("u", b, vec![b as u8; BLOCK as usize].into(), None);
        }
        assert!(c.block("u", 0, None).is_none()); // the oldest went out
        assert_eq!(c.block("u", 2, None).unwrap()[0], 2);
        assert_eq!(c.size("u"), Some((3 * BLOCK, None)));
        c.set_size("u/x", 1, None);
        c.forget("u");
        assert_eq!(c.size("u"), None);
        assert_eq!(c.size("u/x"), None);
        // a new size drops the blocks
        c.set_size("v", 10, None);
        c.insert("v", 0, vec![1u8; 10].into(), None);
        c.set_size("v", 11, None);
        assert!(c.block("v", 0, None).is_none());
        // blocks are of one version: another ETag neither reads nor adds them
        c.set_size("w", 10, Some("\"a\"".into()));
        c.insert("w", 0, vec![1u8; 10].into(), Some("\"a\""));
        c.insert("w", 1, vec![2u8; 10].into(), Some("\"b\""));
        assert!(c.block("w", 0, Some("\"b\"")).is_none());
        assert!(c.block("w", 1, Some("\"a\"")).is_none());
        assert!(c.block("w", 0, Some("\"a\"")).is_some());
        c.forget_version("w", Some("\"b\""));
        assert!(c.size("w").is_some());
        c.forget_version("w", Some("\"a\""));
        assert!(c.size("w").is_none());
    }
}
