//! The bus envelope as JSON lines on a Unix socket: each connection gets
//! the replies to its own messages only.

use super::handler::{Handler, Peer};
use super::message::BusMessage;
use serde_json::json;
use std::io;
use std::path::Path;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::OwnedReadHalf;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Replies queued for one connection before its requests wait for it.
const QUEUE: usize = 256;

/// How long one reply may take to go out before the client is dropped.
const WRITE: std::time::Duration = std::time::Duration::from_secs(30);

/// Binds the socket (making its directory, mode 0700, and removing a
/// stale socket left by a crash) and serves it until `stop`.
pub fn serve(
    path: &Path,
    handler: Handler,
    max_line: usize,
    stop: CancellationToken,
) -> Result<(), String> {
    let listener = bind(path)?;
    let tasks = handler.clone();
    tasks.spawn(async move {
        loop {
            let stream = tokio::select! {
                accepted = listener.accept() => accepted,
                _ = stop.cancelled() => break,
            };
            match stream {
                Ok((stream, _)) => {
                    handler.spawn(connection(stream, handler.clone(), max_line, stop.clone()));
                }
                Err(e) => {
                    tracing::warn!("bus socket: accept failed: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
            }
        }
    });
    Ok(())
}

fn bind(path: &Path) -> Result<UnixListener, String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder
            .create(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        use std::os::unix::fs::FileTypeExt;
        if !meta.file_type().is_socket() {
            return Err(format!(
                "{} exists and is not a socket; not replacing it",
                path.display()
            ));
        }
        if std::os::unix::net::UnixStream::connect(path).is_ok() {
            return Err(format!(
                "another process already serves {} (is loopd running?)",
                path.display()
            ));
        }
        std::fs::remove_file(path)
            .map_err(|e| format!("cannot remove the stale socket {}: {e}", path.display()))?;
    }
    UnixListener::bind(path).map_err(|e| format!("cannot listen on {}: {e}", path.display()))
}

async fn connection(
    stream: UnixStream,
    handler: Handler,
    max_line: usize,
    stop: CancellationToken,
) {
    let (read, mut write) = stream.into_split();
    let (out, mut replies) = mpsc::channel::<BusMessage>(QUEUE);
    let writer_done = CancellationToken::new();
    let done = writer_done.clone().drop_guard();
    let writer = tokio::spawn(async move {
        let _done = done;
        while let Some(message) = replies.recv().await {
            let mut line = message.to_json();
            line.push('\n');
            match tokio::time::timeout(WRITE, write.write_all(line.as_bytes())).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => break,
                Err(_) => {
                    tracing::warn!("bus socket: dropping a client that stopped reading");
                    break;
                }
            }
        }
    });
    let peer = Peer::new(out);
    let mut reader = BufReader::new(read);
    let mut buf = Vec::new();
    loop {
        let line = tokio::select! {
            line = read_line(&mut reader, &mut buf, max_line) => line,
            _ = writer_done.cancelled() => break,
            _ = stop.cancelled() => break,
        };
        let problem = match line {
            Ok(Line::End) | Err(_) => break,
            Ok(Line::TooLong) => format!("a line of more than {max_line} bytes was ignored"),
            Ok(Line::Text) => {
                let text = String::from_utf8_lossy(&buf);
                if text.trim().is_empty() {
                    continue;
                }
                match BusMessage::parse(&text) {
                    Ok(message) => {
                        handler.handle(&peer, message);
                        continue;
                    }
                    Err(e) => e,
                }
            }
        };
        tracing::warn!("bus socket: {problem}");
        let error = json!({"request_id": null, "error": "InvalidArgs", "message": problem});
        if !peer.send(BusMessage::new("loopd.error", error)).await {
            break;
        }
    }
    if stop.is_cancelled() || writer_done.is_cancelled() {
        peer.leave();
    }
    drop(peer);
    let _ = writer.await;
}

/// What [`read_line`] found.
enum Line {
    /// A whole line is in the buffer (without its newline).
    Text,
    /// The line was longer than allowed and was skipped.
    TooLong,
    /// The connection ended.
    End,
}

/// Reads one line into `buf`, never holding more than `cap` bytes of it.
async fn read_line(
    reader: &mut BufReader<OwnedReadHalf>,
    buf: &mut Vec<u8>,
    cap: usize,
) -> io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (too_long, buf.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::End,
                (false, false) => Line::Text,
            });
        }
        let (piece, used, ended) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (&available[..at], at + 1, true),
            None => (available, available.len(), false),
        };
        if !too_long {
            if buf.len() + piece.len() > cap {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(piece);
            }
        }
        reader.consume(used);
        if ended {
            return Ok(if too_long { Line::TooLong } else { Line::Text });
        }
    }
}
