//! The core's error type. Each variant corresponds to one `BLOSC2_ERROR_*` code of the C API;
//! the C layer maps them with [`Error::code`].

use std::fmt;

/// Errors of the b2rs core. The discriminants are the C-Blosc2 error codes.
///
/// # Examples
///
/// ```
/// use b2rs::{chunk, DParams, Error};
///
/// // a buffer too short to be a chunk
/// let mut back = [0u8; 16];
/// let err = chunk::decompress(&DParams::default(), &[1, 2, 3], &mut back, None).unwrap_err();
/// assert!(err.code() < 0);
/// assert_eq!(Error::InvalidParam.code(), -12);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
#[non_exhaustive]
pub enum Error {
    /// Generic failure.
    Failure = -1,
    /// Bad stream.
    Stream = -2,
    /// Invalid data.
    Data = -3,
    /// Memory allocation failure.
    MemoryAlloc = -4,
    /// Not enough space to read.
    ReadBuffer = -5,
    /// Not enough space to write.
    WriteBuffer = -6,
    /// Codec not supported.
    CodecSupport = -7,
    /// Invalid parameter supplied to a codec.
    CodecParam = -8,
    /// Codec dictionary error.
    CodecDict = -9,
    /// Version not supported.
    VersionSupport = -10,
    /// Invalid value in a header.
    InvalidHeader = -11,
    /// Invalid parameter supplied to a function.
    InvalidParam = -12,
    /// File read failure.
    FileRead = -13,
    /// File write failure.
    FileWrite = -14,
    /// File open failure.
    FileOpen = -15,
    /// Not found.
    NotFound = -16,
    /// Bad run-length encoding.
    RunLength = -17,
    /// Filter pipeline error.
    FilterPipeline = -18,
    /// Chunk insert failure.
    ChunkInsert = -19,
    /// Chunk append failure.
    ChunkAppend = -20,
    /// Chunk update failure.
    ChunkUpdate = -21,
    /// Sizes larger than 2 GB are not supported.
    TwoGbLimit = -22,
    /// Super-chunk copy failure.
    SchunkCopy = -23,
    /// Wrong type of frame.
    FrameType = -24,
    /// File truncate failure.
    FileTruncate = -25,
    /// Thread or thread context creation failure.
    ThreadCreate = -26,
    /// Postfilter failure.
    Postfilter = -27,
    /// Special frame failure.
    FrameSpecial = -28,
    /// Special super-chunk failure.
    SchunkSpecial = -29,
    /// I/O plugin error.
    PluginIo = -30,
    /// File removal failure.
    FileRemove = -31,
    /// A pointer is null.
    NullPointer = -32,
    /// Invalid index.
    InvalidIndex = -33,
    /// Metalayer not found.
    MetalayerNotFound = -34,
    /// Maximum buffer size exceeded.
    MaxBufsizeExceeded = -35,
    /// Tuner failure.
    Tuner = -36,
    /// Frame lock failure.
    Lock = -37,
    /// A negative code returned by a user callback (a user filter's backward function), passed
    /// through unchanged as C-Blosc2 does. (The discriminant is unused: see [`Error::code`].)
    Callback(i32) = i32::MIN,
}

/// Result alias of the core.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// The C-Blosc2 error code (`BLOSC2_ERROR_*`, always negative), or the callback's own code.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::Error;
    ///
    /// assert_eq!(Error::Failure.code(), -1);
    /// assert_eq!(Error::Lock.code(), -37);
    /// assert_eq!(Error::Callback(-77).code(), -77);
    /// ```
    pub fn code(self) -> i32 {
        match self {
            Error::Callback(c) => c,
            // `ALL` lists the other variants in code order: -1, -2, ...
            e => ALL
                .iter()
                .position(|&x| x == e)
                .map_or(-1, |i| -(i as i32) - 1),
        }
    }

    /// The error for a code returned by a user callback: a C-Blosc2 error code maps to its
    /// variant, another negative code is kept as [`Error::Callback`], anything else is `otherwise`.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::Error;
    ///
    /// assert_eq!(Error::from_callback(-3, Error::Failure), Error::Data);
    /// assert_eq!(Error::from_callback(-77, Error::Failure), Error::Callback(-77));
    /// assert_eq!(Error::from_callback(5, Error::FilterPipeline), Error::FilterPipeline);
    /// ```
    pub fn from_callback(code: i32, otherwise: Error) -> Error {
        if code >= 0 {
            return otherwise;
        }
        Error::from_code(code).unwrap_or(Error::Callback(code))
    }

    /// The error for a C-Blosc2 error code, if it is one.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::Error;
    ///
    /// assert_eq!(Error::from_code(-16), Some(Error::NotFound));
    /// assert_eq!(Error::from_code(-1000), None);
    /// assert_eq!(Error::from_code(0), None);
    /// ```
    pub fn from_code(code: i32) -> Option<Error> {
        ALL.iter().copied().find(|e| e.code() == code)
    }

    /// The message C-Blosc2's `blosc2_error_string` gives for this error.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::Error;
    ///
    /// assert_eq!(Error::Failure.message(), "Generic failure");
    /// assert_eq!(Error::Stream.message(), "Bad stream");
    /// assert_eq!(Error::Data.to_string(), "Invalid data (-3)");
    /// ```
    pub fn message(self) -> &'static str {
        match self {
            Error::Failure => "Generic failure",
            Error::Stream => "Bad stream",
            Error::Data => "Invalid data",
            Error::MemoryAlloc => "Memory alloc/realloc failure",
            Error::ReadBuffer => "Not enough space to read",
            Error::WriteBuffer => "Not enough space to write",
            Error::CodecSupport => "Codec not supported",
            Error::CodecParam => "Invalid parameter supplied to codec",
            Error::CodecDict => "Codec dictionary error",
            Error::VersionSupport => "Version not supported",
            Error::InvalidHeader => "Invalid value in header",
            Error::InvalidParam => "Invalid parameter supplied to function",
            Error::FileRead => "File read failure",
            Error::FileWrite => "File write failure",
            Error::FileOpen => "File open failure",
            Error::NotFound => "Not found",
            Error::RunLength => "Bad run length encoding",
            Error::FilterPipeline => "Filter pipeline error",
            Error::ChunkInsert => "Chunk insert failure",
            Error::ChunkAppend => "Chunk append failure",
            Error::ChunkUpdate => "Chunk update failure",
            Error::TwoGbLimit => "Sizes larger than 2gb not supported",
            Error::SchunkCopy => "Super-chunk copy failure",
            Error::FrameType => "Wrong type for frame",
            Error::FileTruncate => "File truncate failure",
            Error::ThreadCreate => "Thread or thread context creation failure",
            Error::Postfilter => "Postfilter failure",
            Error::FrameSpecial => "Special frame failure",
            Error::SchunkSpecial => "Special super-chunk failure",
            Error::PluginIo => "IO plugin error",
            Error::FileRemove => "Remove file failure",
            Error::NullPointer => "Pointer is null",
            Error::InvalidIndex => "Invalid index",
            Error::MetalayerNotFound => "Metalayer has not been found",
            Error::MaxBufsizeExceeded => "Maximum buffersize exceeded",
            Error::Tuner => "Tuner failure",
            Error::Lock => "Frame lock failure",
            Error::Callback(_) => "User callback failure",
        }
    }
}

const ALL: [Error; 37] = [
    Error::Failure,
    Error::Stream,
    Error::Data,
    Error::MemoryAlloc,
    Error::ReadBuffer,
    Error::WriteBuffer,
    Error::CodecSupport,
    Error::CodecParam,
    Error::CodecDict,
    Error::VersionSupport,
    Error::InvalidHeader,
    Error::InvalidParam,
    Error::FileRead,
    Error::FileWrite,
    Error::FileOpen,
    Error::NotFound,
    Error::RunLength,
    Error::FilterPipeline,
    Error::ChunkInsert,
    Error::ChunkAppend,
    Error::ChunkUpdate,
    Error::TwoGbLimit,
    Error::SchunkCopy,
    Error::FrameType,
    Error::FileTruncate,
    Error::ThreadCreate,
    Error::Postfilter,
    Error::FrameSpecial,
    Error::SchunkSpecial,
    Error::PluginIo,
    Error::FileRemove,
    Error::NullPointer,
    Error::InvalidIndex,
    Error::MetalayerNotFound,
    Error::MaxBufsizeExceeded,
    Error::Tuner,
    Error::Lock,
];

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message(), self.code())
    }
}

impl std::error::Error for Error {}

/// Print an information line on stderr when `BLOSC_INFO` is set, like C-Blosc2's `BLOSC_INFO`
/// (the variable is read at every call: a program may set it after the library loaded).
///
/// # Examples
///
/// ```
/// // prints "[INFO] - ..." on stderr only when BLOSC_INFO is set
/// b2rs::trace_info!("opened {}", "a.b2frame");
/// ```
#[macro_export]
macro_rules! trace_info {
    ($($arg:tt)*) => {
        if std::env::var_os("BLOSC_INFO").is_some() {
            eprintln!("[INFO] - {}", format_args!($($arg)*));
        }
    };
}

/// Emit a trace message on stderr when `BLOSC_TRACE` is set, like C-Blosc2's `BLOSC_TRACE_ERROR`.
///
/// # Examples
///
/// ```
/// // prints "[error] - ..." on stderr only when BLOSC_TRACE is set
/// b2rs::trace_error!("bad value {}", 42);
/// assert_eq!(b2rs::error::tracing_enabled(), std::env::var_os("BLOSC_TRACE").is_some());
/// ```
#[macro_export]
macro_rules! trace_error {
    ($($arg:tt)*) => {
        if $crate::error::tracing_enabled() {
            eprintln!("[error] - {} ({}:{})", format_args!($($arg)*), file!(), line!());
        }
    };
}

/// Emit a warning on stderr when `BLOSC_TRACE` is set.
///
/// # Examples
///
/// ```
/// // prints "[warning] - ..." on stderr only when BLOSC_TRACE is set
/// b2rs::trace_warning!("odd value {}", 7);
/// assert_eq!(b2rs::error::tracing_enabled(), std::env::var_os("BLOSC_TRACE").is_some());
/// ```
#[macro_export]
macro_rules! trace_warning {
    ($($arg:tt)*) => {
        if $crate::error::tracing_enabled() {
            eprintln!("[warning] - {} ({}:{})", format_args!($($arg)*), file!(), line!());
        }
    };
}

/// Whether `BLOSC_TRACE` is set in the environment (read once).
///
/// # Examples
///
/// ```
/// let on = b2rs::error::tracing_enabled();
/// assert_eq!(on, std::env::var_os("BLOSC_TRACE").is_some());
/// // read once: the answer does not change
/// assert_eq!(b2rs::error::tracing_enabled(), on);
/// ```
pub fn tracing_enabled() -> bool {
    static ON: once_cell::sync::Lazy<bool> =
        once_cell::sync::Lazy::new(|| std::env::var_os("BLOSC_TRACE").is_some());
    *ON
}

/// A buffer of `n` zero bytes, or [`Error::MemoryAlloc`] when it cannot be allocated: sizes
/// read from a damaged file can be huge, and a failed allocation must not abort the process.
pub(crate) fn zeroed_vec(n: usize) -> std::result::Result<Vec<u8>, Error> {
    // Sizes that can plausibly fail (a damaged file asking for gigabytes) are probed with a
    // fallible reservation first (a failure is an error); then the zeroed allocation itself
    // (calloc: the pages of a big buffer stay untouched until written, so a huge size read from
    // a damaged file costs nothing when the read then fails). Ordinary chunk-sized buffers skip
    // the probe, which would allocate and free them once more.
    const PROBE_FROM: usize = 16 << 20;
    if n >= PROBE_FROM {
        Vec::<u8>::new().try_reserve_exact(n).map_err(|_| {
            crate::trace_error!("Cannot allocate {} bytes", n);
            Error::MemoryAlloc
        })?;
    }
    Ok(vec![0u8; n])
}

/// Make `buf` a buffer of `n` bytes (contents unspecified) through [`zeroed_vec`] when its
/// length differs: scratch reused across chunks whose sizes come from a possibly damaged file.
pub(crate) fn scratch_of(buf: &mut Vec<u8>, n: usize) -> std::result::Result<(), Error> {
    if buf.len() != n {
        *buf = Vec::new();
        *buf = zeroed_vec(n)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_match_the_c_constants() {
        for (i, e) in ALL.iter().enumerate() {
            assert_eq!(e.code(), -(i as i32) - 1);
            assert_eq!(Error::from_code(e.code()), Some(*e));
        }
        #[cfg(feature = "capi")]
        {
            assert_eq!(
                Error::Failure.code(),
                crate::capi::consts::BLOSC2_ERROR_FAILURE
            );
            assert_eq!(
                Error::FilterPipeline.code(),
                crate::capi::consts::BLOSC2_ERROR_FILTER_PIPELINE
            );
        }
        assert_eq!(Error::Lock.code(), -37);
        assert_eq!(Error::Callback(-77).code(), -77);
        assert_eq!(Error::from_callback(-77, Error::Data), Error::Callback(-77));
        assert_eq!(Error::from_callback(-3, Error::Failure), Error::Data);
        assert_eq!(
            Error::from_callback(5, Error::FilterPipeline),
            Error::FilterPipeline
        );
    }

    #[test]
    fn zeroed_vec_fails_instead_of_aborting() {
        assert_eq!(zeroed_vec(usize::MAX), Err(Error::MemoryAlloc));
        assert_eq!(zeroed_vec(isize::MAX as usize + 1), Err(Error::MemoryAlloc));
        assert_eq!(zeroed_vec(5).unwrap(), vec![0u8; 5]);
        assert!(zeroed_vec(0).unwrap().is_empty());
    }
}
