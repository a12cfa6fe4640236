//! The filters of the pipeline: one file per filter.
pub mod bitshuffle;
pub mod bytedelta;
pub mod delta;
pub mod int_trunc;
pub mod ndcell;
pub mod ndmean;
pub mod shuffle;
pub mod trunc_prec;
