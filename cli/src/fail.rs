//! How a command fails: a message naming the file (and the chunk), and the exit code (1 for a
//! failure, 2 for a usage error).

use std::path::Path;

/// A failure: the message (naming the file) and the exit code.
pub(crate) struct Fail {
    pub(crate) msg: String,
    pub(crate) code: u8,
}

pub(crate) type Res<T> = Result<T, Fail>;

pub(crate) fn fail<T>(msg: impl Into<String>) -> Res<T> {
    Err(Fail {
        msg: msg.into(),
        code: 1,
    })
}

pub(crate) fn usage<T>(msg: impl Into<String>) -> Res<T> {
    Err(Fail {
        msg: format!("{}\n(run `b2rs --help` for usage)", msg.into()),
        code: 2,
    })
}

impl From<String> for Fail {
    fn from(msg: String) -> Fail {
        Fail { msg, code: 1 }
    }
}

pub(crate) fn d(p: &Path) -> String {
    p.display().to_string()
}
