//! The `files` toolbox: reading, listing and searching text files, read-only
//! and confined to the configured root folders.
//!
//! Every requested path is resolved (relative paths against the first root),
//! normalised, and then canonicalised with symlinks resolved; it must lie
//! inside a canonicalised root both before and after, and only the canonical
//! path is ever opened, so `..`, absolute paths and symlinks cannot lead
//! outside (short of a symlink swapped in between the check and the open by
//! someone who can write inside a root). Searches skip symlinks and hidden
//! (`.`-prefixed) entries and stop at fixed bounds. Without any root the
//! toolbox cannot be built: [`tools`] fails with a message saying so, rather
//! than offering the model tools that could only fail.

use super::{typed_tool, Tool, ToolConfig, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// Bytes `read_file` returns when no `max_bytes` is given.
pub const DEFAULT_READ_BYTES: u64 = 4000;
/// The most bytes one `read_file` call returns.
pub const MAX_READ_BYTES: u64 = 16_000;
/// The most entries `list_dir` returns.
pub const MAX_ENTRIES: usize = 200;
/// Matches `search_files` returns when no `max_results` is given.
pub const DEFAULT_RESULTS: usize = 20;
/// The most matches one `search_files` call returns.
pub const MAX_RESULTS: usize = 100;
/// The most files and folders one search visits.
pub const MAX_VISITED: usize = 5000;
/// Folders deeper than this below the search folder are not searched.
pub const MAX_DEPTH: usize = 10;
/// Files larger than this are matched by name only.
pub const MAX_SEARCHED_FILE_BYTES: u64 = 1_000_000;
/// A matching line is cut to this many characters.
pub const MAX_LINE_CHARS: usize = 200;
/// The longest search query, in characters.
pub const MAX_QUERY_CHARS: usize = 200;
/// How much of a file is looked at to tell text from binary.
const SNIFF_BYTES: usize = 8192;

/// The tools of the `files` toolbox: `read_file`, `list_dir`, `search_files`.
/// Fails when `config.file_roots` is empty or a root is not a readable folder.
pub fn tools(config: &ToolConfig) -> Result<Vec<Arc<dyn Tool>>, FileRootError> {
    let roots = Arc::new(Roots::new(&config.file_roots)?);
    let (a, b, c) = (roots.clone(), roots.clone(), roots);
    Ok(vec![
        typed_tool(
            "read_file",
            "Reads a text file. Long files come in parts: call again with the returned \
             next_offset to read on.",
            move |args| a.read_file(args),
        ),
        typed_tool(
            "list_dir",
            "Lists the files and folders in a folder (default: the main folder).",
            move |args| b.list_dir(args),
        ),
        typed_tool(
            "search_files",
            "Finds text in files and file names under a folder (case-insensitive; \
             * matches any text, ? one character); gives paths and line numbers.",
            move |args| c.search_files(args),
        ),
    ])
}

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// File path, relative to the main folder (e.g. "notes/todo.txt").
    pub path: String,
    /// Byte position to start reading at (default 0; use next_offset to continue).
    pub offset: Option<u64>,
    /// How many bytes to read (default 4000, at most 16000).
    pub max_bytes: Option<u64>,
}

/// Result of `read_file`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ReadFileOutput {
    /// The file.
    pub path: String,
    /// File size in bytes.
    pub size: u64,
    /// Byte position the content starts at.
    pub offset: u64,
    /// The text read.
    pub content: String,
    /// Where to continue reading; absent when the end of the file was reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u64>,
}

/// Arguments of `list_dir`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDirArgs {
    /// Folder path, relative to the main folder (default: the main folder).
    pub path: Option<String>,
}

/// Result of `list_dir`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ListDirOutput {
    /// The folder.
    pub path: String,
    /// Its entries, sorted by name.
    pub entries: Vec<DirEntry>,
    /// How many entries the folder has (more than listed when cut off).
    pub total: usize,
}

/// One entry of a folder.
#[derive(Debug, PartialEq, Serialize, JsonSchema)]
pub struct DirEntry {
    /// File or folder name.
    pub name: String,
    /// "file", "dir", "link" or "other".
    pub kind: String,
    /// Size in bytes, for files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// Arguments of `search_files`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchFilesArgs {
    /// Text to find, e.g. "dentist" or "meeting*monday".
    pub query: String,
    /// Folder to search in, relative to the main folder (default: the main folder).
    pub path: Option<String>,
    /// Most matches to return (default 20, at most 100).
    pub max_results: Option<usize>,
}

/// Result of `search_files`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchFilesOutput {
    /// Matches, in path order.
    pub matches: Vec<SearchMatch>,
    /// Whether the search stopped before looking everywhere (too many matches or files).
    pub truncated: bool,
}

/// A file whose name matches, or one matching line.
#[derive(Debug, PartialEq, Serialize, JsonSchema)]
pub struct SearchMatch {
    /// The file.
    pub path: String,
    /// Line number (from 1); absent when the file name matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The matching line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// Why the `files` toolbox cannot use its configured folders.
#[derive(Debug, thiserror::Error)]
pub enum FileRootError {
    /// No folder is configured.
    #[error("the files toolbox needs at least one folder it may read (configure file roots)")]
    NoRoots,
    /// A folder cannot be resolved (it is missing or unreadable).
    #[error("file root `{}` cannot be used: {source}", .path.display())]
    Unusable {
        /// The folder as configured.
        path: PathBuf,
        /// Why it cannot be resolved.
        #[source]
        source: std::io::Error,
    },
    /// A configured root is not a folder.
    #[error("file root `{}` is not a folder", .path.display())]
    NotAFolder {
        /// The root as configured.
        path: PathBuf,
    },
}

/// One allowed folder: as configured (made absolute and normalised) and with
/// symlinks resolved.
#[derive(Debug)]
struct Root {
    given: PathBuf,
    real: PathBuf,
}

/// The allowed folders; the first one is the main folder.
#[derive(Debug)]
struct Roots(Vec<Root>);

impl Roots {
    fn new(paths: &[PathBuf]) -> Result<Self, FileRootError> {
        if paths.is_empty() {
            return Err(FileRootError::NoRoots);
        }
        paths
            .iter()
            .map(|p| Root::new(p))
            .collect::<Result<_, _>>()
            .map(Roots)
    }

    fn main(&self) -> &Root {
        &self.0[0]
    }

    /// The canonical path of a requested file or folder, if it is allowed.
    fn resolve(&self, requested: &str) -> Result<PathBuf, ToolError> {
        let requested = requested.trim();
        let joined = match requested {
            "" | "." => self.main().real.clone(),
            path if Path::new(path).is_absolute() => PathBuf::from(path),
            path => self.main().real.join(path),
        };
        let normal = normalize(&joined);
        let lexically_inside = self
            .0
            .iter()
            .any(|r| normal.starts_with(&r.given) || normal.starts_with(&r.real));
        if !lexically_inside {
            return Err(outside(requested));
        }
        let real = fs::canonicalize(&normal).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                ToolError::Failed(format!("`{requested}` does not exist"))
            }
            _ => ToolError::Failed(format!("cannot open `{requested}`: {e}")),
        })?;
        if !self.0.iter().any(|r| real.starts_with(&r.real)) {
            return Err(outside(requested));
        }
        Ok(real)
    }

    /// How a path is shown to the model: relative to the main folder when
    /// inside it, else absolute.
    fn display(&self, path: &Path) -> String {
        match path.strip_prefix(&self.main().real) {
            Ok(relative) if relative.as_os_str().is_empty() => ".".into(),
            Ok(relative) => relative.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }

    fn read_file(&self, args: ReadFileArgs) -> Result<ReadFileOutput, ToolError> {
        let path = self.resolve(&args.path)?;
        if path.is_dir() {
            return Err(ToolError::Failed(format!(
                "`{}` is a folder; use list_dir",
                args.path
            )));
        }
        let kind = fs::metadata(&path).map_err(|e| cannot_read(&args.path, e))?;
        if !kind.is_file() {
            return Err(ToolError::Failed(format!(
                "`{}` is not a regular file (a pipe, socket or device); read_file reads files",
                args.path
            )));
        }
        let mut file = fs::File::open(&path).map_err(|e| cannot_read(&args.path, e))?;
        let size = file
            .metadata()
            .map_err(|e| cannot_read(&args.path, e))?
            .len();
        if !looks_like_text(&mut file).map_err(|e| cannot_read(&args.path, e))? {
            return Err(ToolError::Failed(format!(
                "`{}` is a binary file; read_file reads text only",
                args.path
            )));
        }
        let offset = args.offset.unwrap_or(0).min(size);
        let want = args
            .max_bytes
            .unwrap_or(DEFAULT_READ_BYTES)
            .clamp(1, MAX_READ_BYTES);
        let mut bytes = Vec::new();
        file.seek(SeekFrom::Start(offset))
            .and_then(|_| file.take(want).read_to_end(&mut bytes))
            .map_err(|e| cannot_read(&args.path, e))?;
        let skipped = bytes.iter().take_while(|b| is_continuation(**b)).count();
        let end = offset + bytes.len() as u64;
        let kept = if end < size {
            complete_prefix(&bytes[skipped..])
        } else {
            bytes.len() - skipped
        };
        let content = String::from_utf8_lossy(&bytes[skipped..skipped + kept]).into_owned();
        let next = offset + (skipped + kept) as u64;
        Ok(ReadFileOutput {
            path: self.display(&path),
            size,
            offset: offset + skipped as u64,
            content,
            next_offset: (next < size).then_some(next),
        })
    }

    fn list_dir(&self, args: ListDirArgs) -> Result<ListDirOutput, ToolError> {
        let shown = args.path.unwrap_or_default();
        let path = self.resolve(&shown)?;
        if !path.is_dir() {
            return Err(ToolError::Failed(format!(
                "`{shown}` is a file; use read_file"
            )));
        }
        let mut entries: Vec<DirEntry> = fs::read_dir(&path)
            .map_err(|e| cannot_read(&shown, e))?
            .filter_map(Result::ok)
            .map(|entry| describe(&entry))
            .collect();
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        let total = entries.len();
        entries.truncate(MAX_ENTRIES);
        Ok(ListDirOutput {
            path: self.display(&path),
            entries,
            total,
        })
    }

    fn search_files(&self, args: SearchFilesArgs) -> Result<SearchFilesOutput, ToolError> {
        let query = args.query.trim();
        if query.is_empty() || query.chars().count() > MAX_QUERY_CHARS {
            return Err(ToolError::Failed(format!(
                "the query must be 1 to {MAX_QUERY_CHARS} characters"
            )));
        }
        let shown = args.path.unwrap_or_default();
        let start = self.resolve(&shown)?;
        let mut search = Search {
            pattern: Pattern::new(query)?,
            limit: args
                .max_results
                .unwrap_or(DEFAULT_RESULTS)
                .clamp(1, MAX_RESULTS),
            visited: 0,
            matches: Vec::new(),
            truncated: false,
        };
        search.walk(&start);
        Ok(SearchFilesOutput {
            matches: search
                .matches
                .into_iter()
                .map(|(path, line, text)| SearchMatch {
                    path: self.display(&path),
                    line,
                    text,
                })
                .collect(),
            truncated: search.truncated,
        })
    }
}

impl Root {
    fn new(path: &Path) -> Result<Self, FileRootError> {
        let unusable = |source| FileRootError::Unusable {
            path: path.to_path_buf(),
            source,
        };
        let real = fs::canonicalize(path).map_err(unusable)?;
        if !real.is_dir() {
            return Err(FileRootError::NotAFolder {
                path: path.to_path_buf(),
            });
        }
        let absolute = std::path::absolute(path).map_err(unusable)?;
        Ok(Root {
            given: normalize(&absolute),
            real,
        })
    }
}

fn outside(requested: &str) -> ToolError {
    ToolError::Failed(format!(
        "`{requested}` is outside the folders this tool may read"
    ))
}

fn cannot_read(path: &str, error: std::io::Error) -> ToolError {
    ToolError::Failed(format!("cannot read `{path}`: {error}"))
}

/// Resolves `.` and `..` without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn describe(entry: &fs::DirEntry) -> DirEntry {
    let meta = entry.metadata().ok();
    let kind = match meta.as_ref().map(|m| m.file_type()) {
        Some(t) if t.is_symlink() => "link",
        Some(t) if t.is_dir() => "dir",
        Some(t) if t.is_file() => "file",
        _ => "other",
    };
    DirEntry {
        name: entry.file_name().to_string_lossy().into_owned(),
        kind: kind.to_string(),
        size: meta.filter(|m| m.is_file()).map(|m| m.len()),
    }
}

/// Whether the start of a file is UTF-8 text without NUL bytes.
fn looks_like_text(file: &mut fs::File) -> std::io::Result<bool> {
    let mut sample = Vec::with_capacity(SNIFF_BYTES);
    file.by_ref()
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut sample)?;
    file.seek(SeekFrom::Start(0))?;
    Ok(is_text(&sample))
}

fn is_text(sample: &[u8]) -> bool {
    if sample.contains(&0) {
        return false;
    }
    match std::str::from_utf8(sample) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    }
}

fn is_continuation(byte: u8) -> bool {
    byte & 0b1100_0000 == 0b1000_0000
}

/// How many leading bytes hold only whole UTF-8 characters.
fn complete_prefix(bytes: &[u8]) -> usize {
    match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => bytes.len(),
    }
}

/// A case-insensitive pattern found anywhere in a text: `*` matches any
/// run of characters, `?` one character; everything else is literal.
struct Pattern(globset::GlobMatcher);

impl Pattern {
    fn new(query: &str) -> Result<Self, ToolError> {
        let mut glob = String::from("*");
        for c in query.chars().chain(['*']) {
            match c {
                '*' if glob.ends_with('*') => {}
                '[' | ']' | '{' | '}' => glob.extend(['[', c, ']']),
                c => glob.push(c),
            }
        }
        let glob = globset::GlobBuilder::new(&glob)
            .case_insensitive(true)
            .literal_separator(false)
            .backslash_escape(false)
            .build()
            .map_err(|e| ToolError::Failed(format!("the query is not a valid pattern: {e}")))?;
        Ok(Pattern(glob.compile_matcher()))
    }

    fn found_in(&self, text: &str) -> bool {
        self.0.is_match(text)
    }
}

/// One bounded walk of `search_files`.
struct Search {
    pattern: Pattern,
    limit: usize,
    visited: usize,
    matches: Vec<(PathBuf, Option<usize>, Option<String>)>,
    truncated: bool,
}

impl Search {
    fn full(&mut self) -> bool {
        if self.matches.len() >= self.limit || self.visited >= MAX_VISITED {
            self.truncated = true;
        }
        self.truncated
    }

    /// Walks `start` as ripgrep would (hidden files and what `.gitignore`
    /// or `.ignore` files exclude are skipped), never following a link.
    fn walk(&mut self, start: &Path) {
        let walk = ignore::WalkBuilder::new(start)
            .hidden(true)
            .follow_links(false)
            .parents(false)
            .git_global(false)
            .require_git(false)
            .max_depth(Some(MAX_DEPTH + 1))
            .sort_by_file_name(|a, b| a.cmp(b))
            .build();
        for entry in walk.filter_map(Result::ok) {
            if self.full() {
                return;
            }
            self.visited += 1;
            if !entry.file_type().is_some_and(|kind| kind.is_file()) {
                continue;
            }
            let name = entry.file_name().to_string_lossy();
            if entry.depth() > 0 && self.pattern.found_in(&name) {
                self.matches.push((entry.path().to_path_buf(), None, None));
            }
            self.search_file(entry.path());
        }
    }

    fn search_file(&mut self, path: &Path) {
        let too_big = fs::metadata(path).map_or(true, |m| m.len() > MAX_SEARCHED_FILE_BYTES);
        let Some(text) = (!too_big)
            .then(|| fs::read(path).ok())
            .flatten()
            .filter(|bytes| !bytes.contains(&0))
            .and_then(|bytes| String::from_utf8(bytes).ok())
        else {
            return;
        };
        for (number, line) in text.lines().enumerate() {
            if self.full() {
                return;
            }
            if self.pattern.found_in(line) {
                let line_text: String = line.trim().chars().take(MAX_LINE_CHARS).collect();
                self.matches
                    .push((path.to_path_buf(), Some(number + 1), Some(line_text)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// A scratch folder removed on drop.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(tag: &str) -> Self {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos();
            let dir = std::env::temp_dir()
                .join(format!("loopd-files-{tag}-{}-{nanos}", std::process::id()));
            fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    /// `root/` with `notes.txt`, `sub/deep.txt`, `image.bin` and a symlink
    /// `escape -> ../outside`, beside `outside/secret.txt`.
    fn fixture(tag: &str) -> (Scratch, Vec<Arc<dyn Tool>>) {
        let scratch = Scratch::new(tag);
        let root = scratch.0.join("root");
        let outside = scratch.0.join("outside");
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(root.join("notes.txt"), "buy milk\ncall the dentist\n").unwrap();
        fs::write(root.join("sub/deep.txt"), "Dentist on Monday\n").unwrap();
        fs::write(root.join("image.bin"), [0x89, b'P', b'N', b'G', 0, 1, 2]).unwrap();
        fs::write(outside.join("secret.txt"), "dentist password\n").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("escape")).unwrap();
        std::os::unix::fs::symlink(outside.join("secret.txt"), root.join("secret-link.txt"))
            .unwrap();
        let config = ToolConfig {
            file_roots: vec![root],
            ..ToolConfig::default()
        };
        let tools = tools(&config).unwrap();
        (scratch, tools)
    }

    fn call(tools: &[Arc<dyn Tool>], name: &str, args: Value) -> Result<Value, ToolError> {
        tools
            .iter()
            .find(|t| t.spec().name == name)
            .unwrap()
            .call(args)
    }

    fn failure(result: Result<Value, ToolError>) -> String {
        match result {
            Err(ToolError::Failed(message)) => message,
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn reads_files_inside_the_root() {
        let (scratch, tools) = fixture("read");
        let out = call(&tools, "read_file", json!({"path": "notes.txt"})).unwrap();
        assert_eq!(
            out,
            json!({"path": "notes.txt", "size": 26, "offset": 0,
                   "content": "buy milk\ncall the dentist\n"})
        );
        let out = call(&tools, "read_file", json!({"path": "sub/../sub/deep.txt"})).unwrap();
        assert_eq!(out["path"], "sub/deep.txt");
        assert_eq!(out["content"], "Dentist on Monday\n");
        let absolute = fs::canonicalize(scratch.0.join("root/notes.txt")).unwrap();
        let out = call(&tools, "read_file", json!({"path": absolute})).unwrap();
        assert_eq!(out["path"], "notes.txt");
    }

    #[test]
    fn a_pipe_is_refused_at_once() {
        let (scratch, tools) = fixture("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(scratch.0.join("root/pipe"))
            .status()
            .expect("mkfifo (coreutils) is needed");
        assert!(made.success());
        let refused = failure(call(&tools, "read_file", json!({"path": "pipe"})));
        assert!(refused.contains("not a regular file"), "{refused}");
    }

    #[test]
    fn nothing_outside_the_root_can_be_reached() {
        let (scratch, tools) = fixture("confine");
        let secret = scratch.0.join("outside/secret.txt");
        for path in [
            "../outside/secret.txt",
            "sub/../../outside/secret.txt",
            "escape/secret.txt",
            "secret-link.txt",
            secret.to_str().unwrap(),
            "/etc/passwd",
            "/",
        ] {
            let message = failure(call(&tools, "read_file", json!({"path": path})));
            assert_eq!(
                message,
                format!("`{path}` is outside the folders this tool may read")
            );
        }
        let message = failure(call(&tools, "list_dir", json!({"path": "escape"})));
        assert_eq!(
            message,
            "`escape` is outside the folders this tool may read"
        );
        let message = failure(call(&tools, "list_dir", json!({"path": ".."})));
        assert_eq!(message, "`..` is outside the folders this tool may read");
        let message = failure(call(
            &tools,
            "search_files",
            json!({"query": "x", "path": "escape"}),
        ));
        assert_eq!(
            message,
            "`escape` is outside the folders this tool may read"
        );
    }

    #[test]
    fn missing_files_binaries_and_folders_are_explained() {
        let (_scratch, tools) = fixture("errors");
        let message = failure(call(&tools, "read_file", json!({"path": "nope.txt"})));
        assert_eq!(message, "`nope.txt` does not exist");
        let message = failure(call(&tools, "read_file", json!({"path": "image.bin"})));
        assert_eq!(
            message,
            "`image.bin` is a binary file; read_file reads text only"
        );
        let message = failure(call(&tools, "read_file", json!({"path": "sub"})));
        assert_eq!(message, "`sub` is a folder; use list_dir");
        let message = failure(call(&tools, "list_dir", json!({"path": "notes.txt"})));
        assert_eq!(message, "`notes.txt` is a file; use read_file");
    }

    #[test]
    fn long_files_are_read_in_parts_on_character_boundaries() {
        let (scratch, tools) = fixture("parts");
        fs::write(scratch.0.join("root/accents.txt"), "aé€b").unwrap();
        let first = call(
            &tools,
            "read_file",
            json!({"path": "accents.txt", "max_bytes": 4}),
        )
        .unwrap();
        assert_eq!(
            first,
            json!({"path": "accents.txt", "size": 7, "offset": 0, "content": "aé", "next_offset": 3})
        );
        let rest = call(
            &tools,
            "read_file",
            json!({"path": "accents.txt", "offset": 3}),
        )
        .unwrap();
        assert_eq!(rest["content"], "€b");
        assert_eq!(rest.get("next_offset"), None);
        let middle = call(
            &tools,
            "read_file",
            json!({"path": "accents.txt", "offset": 2}),
        )
        .unwrap();
        assert_eq!(
            (middle["offset"].clone(), middle["content"].clone()),
            (json!(3), json!("€b"))
        );
        let big = "x".repeat(20_000);
        fs::write(scratch.0.join("root/big.txt"), &big).unwrap();
        let out = call(
            &tools,
            "read_file",
            json!({"path": "big.txt", "max_bytes": 1_000_000}),
        )
        .unwrap();
        assert_eq!(
            out["content"].as_str().unwrap().len() as u64,
            MAX_READ_BYTES
        );
        assert_eq!(out["next_offset"], MAX_READ_BYTES);
    }

    #[test]
    fn lists_a_folder_sorted_by_name() {
        let (_scratch, tools) = fixture("list");
        let out = call(&tools, "list_dir", json!({})).unwrap();
        assert_eq!(
            out,
            json!({"path": ".", "total": 5, "entries": [
                {"name": "escape", "kind": "link"},
                {"name": "image.bin", "kind": "file", "size": 7},
                {"name": "notes.txt", "kind": "file", "size": 26},
                {"name": "secret-link.txt", "kind": "link"},
                {"name": "sub", "kind": "dir"},
            ]})
        );
        let out = call(&tools, "list_dir", json!({"path": "sub"})).unwrap();
        assert_eq!(
            out["entries"],
            json!([{"name": "deep.txt", "kind": "file", "size": 18}])
        );
    }

    #[test]
    fn search_finds_lines_and_names_but_never_follows_links() {
        let (_scratch, tools) = fixture("search");
        let out = call(&tools, "search_files", json!({"query": "DENTIST"})).unwrap();
        assert_eq!(
            out,
            json!({"truncated": false, "matches": [
                {"path": "notes.txt", "line": 2, "text": "call the dentist"},
                {"path": "sub/deep.txt", "line": 1, "text": "Dentist on Monday"},
            ]})
        );
        let out = call(&tools, "search_files", json!({"query": "d?ep*txt"})).unwrap();
        assert_eq!(out["matches"], json!([{"path": "sub/deep.txt"}]));
        let out = call(
            &tools,
            "search_files",
            json!({"query": "milk", "path": "sub"}),
        )
        .unwrap();
        assert_eq!(out["matches"], json!([]));
    }

    #[test]
    fn search_results_are_bounded() {
        let (scratch, tools) = fixture("bounded");
        let lines: String = (1..=300).map(|i| format!("item {i}\n")).collect();
        fs::write(scratch.0.join("root/list.txt"), lines).unwrap();
        let out = call(
            &tools,
            "search_files",
            json!({"query": "item", "max_results": 5}),
        )
        .unwrap();
        assert_eq!(out["truncated"], true);
        let found: Vec<i64> = out["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["line"].as_i64().unwrap())
            .collect();
        assert_eq!(found, vec![1, 2, 3, 4, 5]);
        let out = call(
            &tools,
            "search_files",
            json!({"query": "item", "max_results": 1000}),
        )
        .unwrap();
        assert_eq!(out["matches"].as_array().unwrap().len(), MAX_RESULTS);
        let long = failure(call(
            &tools,
            "search_files",
            json!({"query": "a".repeat(201)}),
        ));
        assert_eq!(long, "the query must be 1 to 200 characters");
    }

    #[test]
    fn patterns_match_anywhere_in_a_line() {
        let pattern = Pattern::new("a*c").unwrap();
        assert!(pattern.found_in("xxabbbcxx"));
        assert!(!pattern.found_in("cba"));
        assert!(Pattern::new("b?d").unwrap().found_in("abcde"));
        assert!(!Pattern::new("b?d").unwrap().found_in("abde"));
        assert!(Pattern::new("*").unwrap().found_in(""));
        assert!(Pattern::new("TODO").unwrap().found_in("a todo list"));
        assert!(Pattern::new("[x] {a,b}")
            .unwrap()
            .found_in("- [X] {A,B} done"));
        assert!(!Pattern::new("[x]").unwrap().found_in("x"));
        assert!(Pattern::new("a\\b/c").unwrap().found_in("path a\\b/c"));
        assert!(Pattern::new("a**b").unwrap().found_in("xaxxbx"));
    }

    #[test]
    fn the_toolbox_needs_a_root() {
        let message = tools(&ToolConfig::default()).err().unwrap().to_string();
        assert_eq!(
            message,
            "the files toolbox needs at least one folder it may read (configure file roots)"
        );
        let config = ToolConfig {
            file_roots: vec![PathBuf::from("/no/such/folder/anywhere")],
            ..ToolConfig::default()
        };
        let message = tools(&config).err().unwrap().to_string();
        assert!(
            message.starts_with("file root `/no/such/folder/anywhere` cannot be used"),
            "{message}"
        );
    }
}
