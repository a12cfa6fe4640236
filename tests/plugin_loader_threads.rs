//! The lazy loading of codec plugins known by name (`b2rs::registry::set_plugin_loader`) is
//! thread-safe: several threads that first use a plugin at once load it once, and all see it.
//! Its own test binary: the loader is process-wide and installed once.

use b2rs::codecs::StreamInfo;
use b2rs::registry::{self, CodecImpl};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};

static LOADS: AtomicUsize = AtomicUsize::new(0);

/// Copies its input (a stand-in for a plugin's codec).
struct Copy;

impl CodecImpl for Copy {
    fn encode(&self, src: &[u8], dst: &mut [u8], _: StreamInfo<'_>) -> i32 {
        dst[..src.len()].copy_from_slice(src);
        src.len() as i32
    }
    fn decode(&self, src: &[u8], dst: &mut [u8], _: StreamInfo<'_>) -> i32 {
        dst[..src.len()].copy_from_slice(src);
        src.len() as i32
    }
}

fn loader(id: u8, name: &str) -> Option<Arc<dyn CodecImpl>> {
    LOADS.fetch_add(1, Ordering::SeqCst);
    // a slow load, so that the other threads arrive while it runs
    std::thread::sleep(std::time::Duration::from_millis(50));
    (id == 39 && name == "j2k").then(|| Arc::new(Copy) as Arc<dyn CodecImpl>)
}

#[test]
fn concurrent_first_uses_load_once() {
    registry::set_plugin_loader(loader);
    let barrier = Arc::new(Barrier::new(8));
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let b = barrier.clone();
            std::thread::spawn(move || {
                b.wait();
                registry::codec(39).map(|c| (c.id, c.name))
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), Some((39, "j2k".to_string())));
    }
    assert_eq!(LOADS.load(Ordering::SeqCst), 1);
    // a plugin that is not found is looked for once
    assert!(registry::codec(38).is_none());
    assert!(registry::codec(38).is_none());
    assert_eq!(LOADS.load(Ordering::SeqCst), 2);
    // ids that are no plugin's name are never looked for
    assert!(registry::codec(150).is_none());
    assert_eq!(LOADS.load(Ordering::SeqCst), 2);
}
