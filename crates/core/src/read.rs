//! Reading inputs with a bound: regular files, explicitly named streams (`<(cmd)`,
//! `/dev/stdin`, FIFOs, devices) and stdin. Nothing is read past the maximum input size, so
//! an endless stream or a huge file named by mistake cannot take the machine; what is over
//! the bound is reported, never silently passed.

use std::io::Read;
use std::path::Path;

/// The default maximum input size: 1 GiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1 << 30;

/// What a file looked like when it was read, to tell later whether it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStamp {
    pub len: u64,
    pub modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    pub dev: u64,
    #[cfg(unix)]
    pub ino: u64,
}

impl FileStamp {
    pub fn of(meta: &std::fs::Metadata) -> FileStamp {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        FileStamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            dev: meta.dev(),
            #[cfg(unix)]
            ino: meta.ino(),
        }
    }
}

/// An input's bytes, or why there are none.
#[derive(Debug)]
pub enum Loaded {
    /// The whole input, and (for a regular file) its stamp when read.
    Bytes(Vec<u8>, Option<FileStamp>),
    /// Larger than the limit: `size` is the file's size when known (a stream's is not).
    TooLarge { size: Option<u64>, limit: u64 },
}

/// Reads a file named on the command line or found in a walk. Regular files are checked
/// against the limit before reading; anything else (a FIFO, `/dev/stdin`, a device) is read
/// as a stream, up to the limit.
pub fn read_path(path: &Path, limit: u64) -> std::io::Result<Loaded> {
    match open_path(path)? {
        Opening::File(file) => file.read(limit),
        Opening::Dir => Err(std::io::Error::other("is a directory")),
        Opening::Stream(file) => read_stream(file, limit),
    }
}

/// A path once opened: what it is is told from the open handle, with no look at the path
/// before (a stream is opened once, so nothing its writer sends is lost).
pub enum Opening {
    /// A regular file, its first bytes read.
    File(OpenFile),
    Dir,
    /// A FIFO, `/dev/stdin`, a device: read from where it is, as a stream.
    Stream(std::fs::File),
}

/// Opens `path` and tells what it is.
pub fn open_path(path: &Path) -> std::io::Result<Opening> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        // Where a directory cannot be opened as a file (Windows), its metadata says so.
        Err(e) => {
            return match std::fs::metadata(path) {
                Ok(meta) if meta.is_dir() => Ok(Opening::Dir),
                _ => Err(e),
            }
        }
    };
    let meta = file.metadata()?;
    Ok(if meta.is_dir() {
        Opening::Dir
    } else if meta.is_file() {
        Opening::File(OpenFile::with_head(file, meta)?)
    } else {
        Opening::Stream(file)
    })
}

/// How much of a regular file is read before it is told what it holds: all of a small
/// file, which is then not read again; a little of a database, which is read in place.
const FIRST_READ: usize = 64 << 10;

/// A regular file opened once, with its first bytes read: what it holds is told from them
/// (a database, a compressed log, text) before the rest is read, without opening it again.
pub struct OpenFile {
    file: std::fs::File,
    /// The file when it was opened.
    stamp: FileStamp,
    /// What has been read, from the start of the file.
    bytes: Vec<u8>,
}

impl OpenFile {
    fn with_head(file: std::fs::File, meta: std::fs::Metadata) -> std::io::Result<OpenFile> {
        let len = usize::try_from(meta.len()).unwrap_or(usize::MAX);
        let mut open = OpenFile {
            file,
            stamp: FileStamp::of(&meta),
            bytes: Vec::new(),
        };
        open.fill(len.min(FIRST_READ))?;
        Ok(open)
    }

    /// Reads on until `bytes` holds `want` bytes or the file ends.
    fn fill(&mut self, want: usize) -> std::io::Result<()> {
        let have = self.bytes.len();
        self.bytes.reserve_exact(want.saturating_sub(have));
        (&mut self.file)
            .take(want.saturating_sub(have) as u64)
            .read_to_end(&mut self.bytes)?;
        Ok(())
    }

    /// The file's first bytes: enough to tell a SQLite database (16 bytes) or a Zstandard
    /// frame (4), or all of them when it holds fewer.
    pub fn head(&self) -> &[u8] {
        self.bytes.get(..16).unwrap_or(&self.bytes)
    }

    /// The file's size when it was opened.
    pub fn size(&self) -> u64 {
        self.stamp.len
    }

    /// The whole file, or `TooLarge` when it is over `limit` bytes (when opened, or grown
    /// past it while being read).
    pub fn read(mut self, limit: u64) -> std::io::Result<Loaded> {
        let len = self.stamp.len;
        if len > limit {
            return Ok(Loaded::TooLarge {
                size: Some(len),
                limit,
            });
        }
        let want = usize::try_from(len).unwrap_or(usize::MAX);
        self.fill(want)?;
        // A file that grew while being read is read on, to the limit.
        if self.bytes.len() >= want {
            let left = (limit + 1).saturating_sub(self.bytes.len() as u64);
            self.file.take(left).read_to_end(&mut self.bytes)?;
        }
        if self.bytes.len() as u64 > limit {
            return Ok(Loaded::TooLarge { size: None, limit });
        }
        Ok(Loaded::Bytes(self.bytes, Some(self.stamp)))
    }
}

/// Reads a stream (stdin, a pipe) up to `limit` bytes.
pub fn read_stream(reader: impl Read, limit: u64) -> std::io::Result<Loaded> {
    let (bytes, over) = read_prefix(reader, limit)?;
    if over {
        return Ok(Loaded::TooLarge { size: None, limit });
    }
    Ok(Loaded::Bytes(bytes, None))
}

/// Up to `limit + 1` bytes of a stream, and whether it holds more than `limit`: what was
/// read of a stream over the bound, for `fix --write -` to pass it through unchanged.
pub fn read_prefix(reader: impl Read, limit: u64) -> std::io::Result<(Vec<u8>, bool)> {
    let mut bytes = Vec::new();
    reader.take(limit + 1).read_to_end(&mut bytes)?;
    let over = bytes.len() as u64 > limit;
    Ok((bytes, over))
}

/// Reads a small file that must be a regular file (a config or `--tools` file): a FIFO or
/// device there is a mistake that would otherwise hang the run.
pub fn read_regular_to_string(path: &Path, limit: u64) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    match read_path(path, limit).map_err(|e| e.to_string())? {
        Loaded::Bytes(bytes, _) => crate::encoding::utf8_string(bytes).map_err(|e| {
            format!(
                "not valid UTF-8 (byte 0x{:02x} at offset {})",
                e.as_bytes()
                    .get(e.utf8_error().valid_up_to())
                    .copied()
                    .unwrap_or_default(),
                e.utf8_error().valid_up_to()
            )
        }),
        Loaded::TooLarge { .. } => Err(format!("larger than {}", human_size(limit))),
    }
}

/// Suffixes of compressed logs (`zstd_log.rs`), looked through for the extension.
const COMPRESSED: [&str; 2] = ["zstd", "zst"];

/// A path's extension in lower case, seen through a compression suffix: `.jsonl` for
/// `session.jsonl.zstd`.
pub fn inner_extension(path: &Path) -> Option<String> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    if COMPRESSED.contains(&ext.as_str()) {
        return inner_extension(Path::new(path.file_stem()?));
    }
    Some(ext)
}

/// Parses a size such as `1048576`, `512K`, `100MB`, `1G` or `2GiB` (powers of 1024).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits.parse().map_err(|_| {
        format!("invalid size `{text}`: expected a number of bytes, optionally with K, M or G")
    })?;
    let shift = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        _ => {
            return Err(format!(
                "invalid size `{text}`: unknown unit `{unit}` (use K, M, G or T)"
            ))
        }
    };
    n.checked_mul(1u64 << shift)
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("invalid size `{text}`: must be between 1 byte and 16 EiB"))
}

/// `1.5 GiB`, `300 MiB`, `12 KiB`, `80 bytes`.
pub fn human_size(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let name = UNITS.get(unit).copied().unwrap_or("TiB");
    if value.fract() == 0.0 {
        format!("{value:.0} {name}")
    } else {
        format!("{value:.1} {name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1024"), Ok(1024));
        assert_eq!(parse_size("512K"), Ok(512 << 10));
        assert_eq!(parse_size("100MB"), Ok(100 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert!(parse_size("0").is_err());
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("lots").is_err());
        assert!(parse_size("99999999999T").is_err());
        assert_eq!(human_size(80), "80 bytes");
        assert_eq!(human_size(1 << 30), "1 GiB");
        assert_eq!(human_size(3 << 29), "1.5 GiB");
    }

    #[test]
    fn streams_are_bounded() {
        let endless = std::io::repeat(b'x');
        match read_stream(endless, 1000) {
            Ok(Loaded::TooLarge { size: None, limit }) => assert_eq!(limit, 1000),
            other => panic!("expected TooLarge, got {other:?}"),
        }
        match read_stream(&b"{}"[..], 1000) {
            Ok(Loaded::Bytes(b, None)) => assert_eq!(b, b"{}"),
            other => panic!("expected bytes, got {other:?}"),
        }
    }

    fn open_file(path: &Path) -> OpenFile {
        match open_path(path) {
            Ok(Opening::File(file)) => file,
            _ => panic!("{} is not a regular file", path.display()),
        }
    }

    /// A file read once opened gives all its bytes whatever its size against the first
    /// read's, its head the first 16 (or all when shorter), and one over the limit is said.
    #[test]
    fn open_files_read_whole_from_their_head() {
        let dir = tempfile::tempdir().expect("tempdir");
        for len in [
            0,
            1,
            15,
            16,
            17,
            FIRST_READ - 1,
            FIRST_READ,
            FIRST_READ + 1,
            3 * FIRST_READ + 7,
        ] {
            let text: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let path = dir.path().join(format!("{len}.json"));
            std::fs::write(&path, &text).expect("write");
            let open = open_file(&path);
            assert_eq!(open.head(), text.get(..16).unwrap_or(&text), "{len}");
            assert_eq!(open.size(), len as u64);
            match open.read(DEFAULT_MAX_FILE_SIZE) {
                Ok(Loaded::Bytes(bytes, Some(stamp))) => {
                    assert!(bytes == text, "{len}");
                    assert_eq!(stamp.len, len as u64);
                }
                other => panic!("{len}: expected bytes, got {other:?}"),
            }
            match read_path(&path, DEFAULT_MAX_FILE_SIZE) {
                Ok(Loaded::Bytes(bytes, Some(_))) => assert!(bytes == text, "{len}"),
                other => panic!("{len}: expected bytes, got {other:?}"),
            }
            if len > 0 {
                let limit = len as u64 - 1;
                match open_file(&path).read(limit) {
                    Ok(Loaded::TooLarge { size, limit: l }) => {
                        assert_eq!((size, l), (Some(len as u64), limit));
                    }
                    other => panic!("{len}: expected TooLarge, got {other:?}"),
                }
            }
        }
    }

    /// A file that grows after it is opened is read to its end, and past the limit it is
    /// said to be too large rather than cut.
    #[test]
    fn a_file_growing_while_read_is_read_on_to_the_limit() {
        use std::io::Write;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log.jsonl");
        std::fs::write(&path, b"{}\n").expect("write");
        let open = open_file(&path);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("append");
        file.write_all(b"{\"a\":1}\n").expect("grow");
        match open.read(1000) {
            Ok(Loaded::Bytes(bytes, _)) => assert_eq!(bytes, b"{}\n{\"a\":1}\n"),
            other => panic!("expected bytes, got {other:?}"),
        }
        let open = open_file(&path);
        file.write_all(&[b' '; 2000]).expect("grow");
        match open.read(1000) {
            Ok(Loaded::TooLarge { size: None, limit }) => assert_eq!(limit, 1000),
            other => panic!("expected TooLarge, got {other:?}"),
        }
    }
}
