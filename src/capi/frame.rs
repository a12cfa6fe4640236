//! Frames through the C API (to come with the super-chunk work). For now only the opaque type.

/// The opaque frame behind `blosc2_frame` (C: `struct blosc2_frame_s`).
pub struct blosc2_frame_s {
    _private: (),
}
