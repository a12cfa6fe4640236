//! b2rs — a memory-safe Rust implementation of C-Blosc2.
//!
//! The safe core (chunks, codecs, filters) has an idiomatic Rust API; `capi` exports the
//! C-Blosc2 3.3 C API on top of it.
#![warn(missing_docs)]

pub mod b2nd;
pub mod bloscpack;
pub mod chunk;
pub mod codecs;
pub mod error;
pub mod filters;
pub mod frame;
pub mod params;
pub mod registry;
pub mod schunk;

pub mod capi;

pub use error::{Error, Result};
pub use params::{CParams, DParams, SplitMode};
