//! One file per command.

pub(crate) mod compress;
pub(crate) mod convert;
pub(crate) mod decompress;
pub(crate) mod info;
pub(crate) mod salvage;
pub(crate) mod verify;
