//! The command line (clap): the commands, their options and how each value is read, and
//! [`Opts`], the options as the commands use them.

use b2rs::params::filter_id;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// The usage lines of `b2rs --help` (one per command, as the tool always printed them).
const USAGE: &str = "\
b2rs compress IN OUT [options]     raw bytes → .b2frame (default), .b2nd or .blp
       b2rs decompress IN OUT [options]   any of those → raw bytes (b2nd: C-order items)
       b2rs convert IN OUT [options]      between .b2frame, sparse frames, .b2nd and .blp
       b2rs info FILE [--json]            header, codec, filters, sizes, chunks, metalayers
       b2rs verify FILE [--json]          decode every chunk; non-zero exit on any damage
       b2rs salvage IN OUT [--json]       a new frame from every chunk that still decodes
       b2rs help [COMMAND]                the options of a command
       b2rs completions SHELL             a completion script for bash, zsh, fish, ...";

/// `b2rs`: Blosc2 frames, b2nd arrays and Bloscpack files.
#[derive(Parser)]
#[command(
    name = "b2rs",
    version,
    about = "b2rs — Blosc2 frames, b2nd arrays and Bloscpack files",
    override_usage = USAGE,
    after_help = "The output format comes from OUT's extension (.b2frame/.b2f, .b2nd, .blp) or \
                  --format. Every command streams one chunk at a time.",
    arg_required_else_help = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The commands.
#[derive(Subcommand)]
pub(crate) enum Command {
    /// Raw bytes → .b2frame (default), .b2nd or .blp
    Compress(Transcode),
    /// Any of those → raw bytes (b2nd: C-order items)
    Decompress(Decode),
    /// Between .b2frame, sparse frames, .b2nd and .blp
    Convert(Transcode),
    /// Header, codec, filters, sizes, chunks, metalayers
    Info(Inspect),
    /// Decode every chunk; non-zero exit on any damage
    Verify(Check),
    /// A new frame from every chunk of a damaged one that still decodes (lost ones zeroed
    /// and listed); exit 0: nothing lost, 3: something lost, 1: nothing written
    Salvage(Rescue),
    /// Print a shell completion script
    Completions {
        /// bash, zsh, fish, elvish or powershell
        shell: clap_complete::Shell,
    },
}

/// `compress` and `convert`: an input, an output and how to encode it.
#[derive(Args)]
pub(crate) struct Transcode {
    /// The input file (compress: raw bytes; convert: a frame, b2nd array or Bloscpack file)
    #[arg(value_name = "IN")]
    pub(crate) input: PathBuf,
    /// The output file (or directory, for a sparse frame)
    #[arg(value_name = "OUT")]
    pub(crate) output: PathBuf,
    #[command(flatten)]
    pub(crate) encode: EncodeArgs,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

/// `decompress`: an input and the raw output.
#[derive(Args)]
pub(crate) struct Decode {
    /// A frame, b2nd array or Bloscpack file
    #[arg(value_name = "IN")]
    pub(crate) input: PathBuf,
    /// The raw bytes written
    #[arg(value_name = "OUT")]
    pub(crate) output: PathBuf,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

/// `info`.
#[derive(Args)]
pub(crate) struct Inspect {
    /// A frame, b2nd array or Bloscpack file
    #[arg(value_name = "FILE")]
    pub(crate) file: PathBuf,
    /// Print JSON
    #[arg(long)]
    pub(crate) json: bool,
}

/// `verify`.
#[derive(Args)]
pub(crate) struct Check {
    /// A frame, b2nd array or Bloscpack file
    #[arg(value_name = "FILE")]
    pub(crate) file: PathBuf,
    /// Print the report as JSON (each problem with its chunk number)
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

/// `salvage`.
#[derive(Args)]
pub(crate) struct Rescue {
    /// A damaged frame (file or sparse frame directory) or b2nd array
    #[arg(value_name = "IN")]
    pub(crate) input: PathBuf,
    /// The new frame (replaced if it exists)
    #[arg(value_name = "OUT")]
    pub(crate) output: PathBuf,
    /// Write a sparse frame (a directory)
    #[arg(long)]
    pub(crate) sparse: bool,
    /// Print the report as JSON
    #[arg(long)]
    pub(crate) json: bool,
}

/// How the output is encoded.
#[derive(Args)]
pub(crate) struct EncodeArgs {
    /// b2frame | b2nd | blp (alias: frame, bloscpack)
    #[arg(long, value_name = "F", value_parser = lower)]
    format: Option<String>,
    /// Write a sparse frame (a directory) instead of a contiguous one
    #[arg(long)]
    sparse: bool,
    /// blosclz | lz4 | lz4hc | zlib | zstd (default zstd; blp: blosclz)
    #[arg(long, value_name = "C", value_parser = parse_codec)]
    codec: Option<u8>,
    /// 0..9 (default 5; blp: 7)
    #[arg(long, value_name = "N", value_parser = parse_clevel)]
    clevel: Option<u8>,
    /// shuffle | bitshuffle | delta | trunc_prec:BITS | bytedelta | none; repeat for a pipeline
    /// (default shuffle)
    #[arg(long = "filter", value_name = "F", value_parser = parse_filter)]
    filters: Vec<(u8, u8)>,
    /// Item size in bytes (default 8, or the dtype's itemsize)
    #[arg(long, value_name = "N", value_parser = parse_typesize)]
    typesize: Option<i32>,
    /// Bytes per chunk (default 1M; b2nd: the target chunk size); K/M/G suffixes
    #[arg(long, value_name = "N", value_parser = parse_chunk_size)]
    chunk_size: Option<usize>,
    /// b2nd: array shape (items)
    #[arg(long, value_name = "A,B,..", value_parser = parse_list::<i64>)]
    shape: Option<List<i64>>,
    /// b2nd: NumPy dtype string, e.g. '<f8', '<i4', '|u1'
    #[arg(long, value_name = "D")]
    dtype: Option<String>,
    /// b2nd: chunk shape (default: derived from --chunk-size)
    #[arg(long, value_name = "A,B,..", value_parser = parse_list::<i32>)]
    chunks: Option<List<i32>>,
    /// b2nd: block shape (default: derived from the chunk shape)
    #[arg(long, value_name = "A,B,..", value_parser = parse_list::<i32>)]
    blocks: Option<List<i32>>,
    /// Record a CRC-32C per chunk (the b2rs_crc32c vlmetalayer), which `verify` checks
    #[arg(long)]
    checksum: bool,
}

/// How a command runs.
#[derive(Args)]
pub(crate) struct RunArgs {
    /// Compression/decompression threads
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = parse_threads)]
    threads: i16,
    /// No progress bar
    #[arg(short, long)]
    quiet: bool,
}

/// A comma-separated list given as one value.
#[derive(Clone, Debug)]
pub(crate) struct List<T>(Vec<T>);

/// The options as the commands use them.
#[derive(Default)]
pub(crate) struct Opts {
    pub(crate) format: Option<String>,
    pub(crate) sparse: bool,
    pub(crate) codec: Option<u8>,
    pub(crate) clevel: Option<u8>,
    pub(crate) filters: Vec<(u8, u8)>,
    pub(crate) typesize: Option<i32>,
    pub(crate) chunk_size: Option<usize>,
    pub(crate) shape: Option<Vec<i64>>,
    pub(crate) dtype: Option<String>,
    pub(crate) chunks: Option<Vec<i32>>,
    pub(crate) blocks: Option<Vec<i32>>,
    pub(crate) checksum: bool,
    pub(crate) threads: i16,
    pub(crate) json: bool,
    pub(crate) quiet: bool,
}

impl Opts {
    /// The options of a command that encodes.
    pub(crate) fn encoding(e: &EncodeArgs, r: &RunArgs) -> Opts {
        Opts {
            format: e.format.clone(),
            sparse: e.sparse,
            codec: e.codec,
            clevel: e.clevel,
            filters: e.filters.clone(),
            typesize: e.typesize,
            chunk_size: e.chunk_size,
            shape: e.shape.clone().map(|l| l.0),
            dtype: e.dtype.clone(),
            chunks: e.chunks.clone().map(|l| l.0),
            blocks: e.blocks.clone().map(|l| l.0),
            checksum: e.checksum,
            ..Opts::running(r)
        }
    }

    /// The options of a command that only reads.
    pub(crate) fn running(r: &RunArgs) -> Opts {
        Opts {
            threads: r.threads,
            quiet: r.quiet,
            ..Opts::default()
        }
    }
}

fn lower(s: &str) -> Result<String, String> {
    Ok(s.to_ascii_lowercase())
}

fn parse_codec(s: &str) -> Result<u8, String> {
    b2rs::codecs::id_of(&s.to_ascii_lowercase())
        .ok_or_else(|| format!("unknown codec {s:?} (blosclz, lz4, lz4hc, zlib, zstd)"))
}

fn parse_clevel(s: &str) -> Result<u8, String> {
    match s.parse::<u8>() {
        Ok(v) if v <= 9 => Ok(v),
        _ => Err("must be 0..9".into()),
    }
}

fn parse_typesize(s: &str) -> Result<i32, String> {
    match s.parse::<i32>() {
        Ok(v) if (1..=255).contains(&v) => Ok(v),
        _ => Err("must be 1..255".into()),
    }
}

fn parse_threads(s: &str) -> Result<i16, String> {
    match s.parse::<i16>() {
        Ok(v) if v >= 1 => Ok(v),
        _ => Err("must be a positive integer".into()),
    }
}

fn parse_chunk_size(s: &str) -> Result<usize, String> {
    match parse_size(s) {
        Some(v) if v > 0 && v <= (i32::MAX as usize - 64) => Ok(v),
        _ => Err("must be a size like 1M, 65536".into()),
    }
}

/// `65536`, `64K`, `1M`, `2GiB`, ...
fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let lower = s.to_ascii_lowercase();
    let t = lower.trim_end_matches("ib").trim_end_matches('b');
    let (num, mul) = match t.chars().last()? {
        'k' => (&t[..t.len() - 1], 1usize << 10),
        'm' => (&t[..t.len() - 1], 1 << 20),
        'g' => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    num.trim().parse::<usize>().ok()?.checked_mul(mul)
}

/// `10,20`, `(10, 20)`, `[10,20]`.
fn parse_list<T: std::str::FromStr>(s: &str) -> Result<List<T>, String> {
    let s = s
        .trim()
        .trim_start_matches(['(', '['])
        .trim_end_matches([')', ']']);
    if s.trim().is_empty() {
        return Ok(List(Vec::new()));
    }
    s.split(',')
        .filter(|x| !x.trim().is_empty())
        .map(|x| x.trim().parse::<T>())
        .collect::<Result<Vec<T>, _>>()
        .map(List)
        .map_err(|_| format!("expected a comma-separated list of integers, got {s:?}"))
}

/// A filter and its meta byte: `shuffle`, `trunc_prec:20`, ...
fn parse_filter(s: &str) -> Result<(u8, u8), String> {
    let (name, meta) = match s.split_once(':') {
        Some((n, m)) => (n, Some(m)),
        None => (s, None),
    };
    let meta = match meta {
        Some(m) => m
            .parse::<u8>()
            .map_err(|_| "the filter meta must be 0..255".to_string())?,
        None => 0,
    };
    let id = match name.to_ascii_lowercase().as_str() {
        "none" | "nofilter" => filter_id::NOFILTER,
        "shuffle" => filter_id::SHUFFLE,
        "bitshuffle" => filter_id::BITSHUFFLE,
        "delta" => filter_id::DELTA,
        "trunc_prec" | "truncprec" => {
            if meta == 0 {
                return Err(
                    "trunc_prec needs the number of mantissa bits to keep, e.g. trunc_prec:20"
                        .into(),
                );
            }
            filter_id::TRUNC_PREC
        }
        "bytedelta" => filter_id::BYTEDELTA,
        _ => {
            return Err(format!(
                "unknown filter {name:?} (shuffle, bitshuffle, delta, trunc_prec:BITS, \
                 bytedelta, none)"
            ))
        }
    };
    Ok((id, meta))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values() {
        assert_eq!(parse_size("64K"), Some(65536));
        assert_eq!(parse_size("2MiB"), Some(2 << 20));
        assert_eq!(parse_list::<i64>("(10, 20)").unwrap().0, vec![10, 20]);
        assert!(parse_list::<i64>("10,x").is_err());
        assert_eq!(
            parse_filter("trunc_prec:20"),
            Ok((filter_id::TRUNC_PREC, 20))
        );
        assert!(parse_filter("trunc_prec").is_err());
        assert!(parse_clevel("12").is_err());
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
