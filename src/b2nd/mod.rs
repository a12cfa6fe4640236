//! B2ND: n-dimensional arrays on a super-chunk (B2ND.md):
//!
//! * [`meta`]: the `b2nd` metalayer (and the legacy `caterva` one), byte-exact with C-Blosc2;
//! * [`geometry`]: shape / chunk shape / block shape validation, padding, strides, index math and
//!   which chunks and blocks a slice touches;
//! * [`mod@array`]: the arrays themselves, on a super-chunk;
//! * [`copy`]: n-dimensional strided copies of hyper-rectangles between C-order buffers.

pub mod array;
pub mod copy;
mod dims;
pub mod geometry;
pub mod meta;

pub use array::{Array, Fill};
pub use copy::{copy_buffer, CopyPlan, Region};
pub use geometry::{BlockSlice, ChunkSlice, Geometry, Location};
pub use meta::Meta;

/// Maximum number of dimensions of an array (`B2ND_MAX_DIM`).
pub const MAX_DIM: usize = 16;

/// Version of the `b2nd` metalayer format (`B2ND_METALAYER_VERSION`).
pub const METALAYER_VERSION: u8 = 0;

/// Maximum number of user metalayers of an array besides `b2nd` (`B2ND_MAX_METALAYERS`).
pub const MAX_METALAYERS: usize = 15;

/// The dtype written when none is given (`B2ND_DEFAULT_DTYPE`, NumPy's `uint8`).
pub const DEFAULT_DTYPE: &str = "|u1";

/// The NumPy dtype format (`DTYPE_NUMPY_FORMAT`), the default `dtype_format`.
pub const DTYPE_NUMPY_FORMAT: i8 = 0;

/// Name of the metalayer describing an array.
pub const METALAYER_NAME: &str = "b2nd";

/// Name of the metalayer written by Caterva, the predecessor of b2nd (read only).
pub const CATERVA_METALAYER_NAME: &str = "caterva";
