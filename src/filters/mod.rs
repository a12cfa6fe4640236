//! The filters of the pipeline: one file per filter.
pub mod bitshuffle;
pub mod delta;
pub mod shuffle;
pub mod trunc_prec;
