//! `b2rs`: compress, decompress, inspect, convert, verify and salvage Blosc2 frames (contiguous and
//! sparse), b2nd arrays and Bloscpack files, with the safe Rust core of b2rs (no C API).
//!
//! Every command streams: one chunk (or, for b2nd, one slab of chunk rows) at a time, so files
//! larger than memory work with bounded memory. `opts.rs` is the command line (clap), one file
//! per command in `commands/`, `input.rs` and `output.rs` what they share.

mod commands;
mod fail;
mod input;
mod json;
mod nd;
mod opts;
mod output;
mod progress;

use clap::{CommandFactory, Parser};
use opts::{Cli, Command, Opts};
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => return clap_exit(e),
    };
    let r = match &cli.command {
        Command::Compress(t) => {
            commands::compress::compress(&Opts::encoding(&t.encode, &t.run), &t.input, &t.output)
                .map(|()| 0)
        }
        Command::Convert(t) => {
            commands::convert::convert(&Opts::encoding(&t.encode, &t.run), &t.input, &t.output)
                .map(|()| 0)
        }
        Command::Decompress(t) => {
            commands::decompress::decompress(&Opts::running(&t.run), &t.input, &t.output)
                .map(|()| 0)
        }
        Command::Info(t) => {
            let o = Opts {
                json: t.json,
                ..Opts::default()
            };
            commands::info::info(&o, &t.file).map(|()| 0)
        }
        Command::Verify(t) => commands::verify::verify(&Opts::running(&t.run), &t.file, t.json),
        Command::Salvage(t) => commands::salvage::salvage(t),
        Command::Completions { shell } => {
            clap_complete::generate(*shell, &mut Cli::command(), "b2rs", &mut std::io::stdout());
            Ok(0)
        }
    };
    match r {
        Ok(code) => ExitCode::from(code),
        Err(f) => {
            let _ = std::io::stdout().flush();
            eprintln!("b2rs: {}", f.msg);
            ExitCode::from(f.code)
        }
    }
}

/// Help and version go to stdout (exit 0); a usage error to stderr, as `b2rs: ...` (exit 2).
fn clap_exit(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            ExitCode::from(2)
        }
        _ => {
            let text = e.render().to_string();
            let text = text.strip_prefix("error: ").unwrap_or(&text);
            eprint!("b2rs: {text}");
            ExitCode::from(2)
        }
    }
}
