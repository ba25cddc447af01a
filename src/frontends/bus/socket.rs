//! The bus envelope as JSON lines on a Unix socket: each connection gets
//! the replies to its own messages only.

use super::handler::{Handler, Peer};
use super::message::BusMessage;
use crate::frontends::guard::Slots;
use futures_util::StreamExt;
use serde_json::json;
use std::io;
use std::path::Path;
use tokio::io::AsyncWriteExt;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::mpsc;
use tokio_util::bytes::BytesMut;
use tokio_util::codec::{Decoder, FramedRead, LinesCodec, LinesCodecError};
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
    let slots = Slots::new("bus socket");
    tasks.spawn(async move {
        loop {
            let stream = tokio::select! {
                accepted = listener.accept() => accepted,
                _ = stop.cancelled() => break,
            };
            match stream {
                Ok((stream, _)) => {
                    let Some(slot) = slots.take("a local client") else {
                        continue;
                    };
                    let served = connection(stream, handler.clone(), max_line, stop.clone());
                    handler.spawn(async move {
                        served.await;
                        drop(slot);
                    });
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
    handler.reach(&peer);
    let mut lines = FramedRead::new(read, Lines(LinesCodec::new_with_max_length(max_line)));
    loop {
        let line = tokio::select! {
            line = lines.next() => line,
            _ = writer_done.cancelled() => break,
            _ = stop.cancelled() => break,
        };
        let problem = match line {
            None | Some(Err(_)) => break,
            Some(Ok(Line::TooLong)) => format!("a line of more than {max_line} bytes was ignored"),
            Some(Ok(Line::NotUtf8)) => "a line that is not UTF-8 was ignored".to_string(),
            Some(Ok(Line::Text(text))) => {
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

/// One line from a client.
enum Line {
    /// A line, without its newline.
    Text(String),
    /// A line longer than allowed, skipped.
    TooLong,
    /// A line that is not UTF-8, skipped.
    NotUtf8,
}

/// Bounded lines as [`LinesCodec`] reads them, with its two recoverable
/// errors turned into items: a stream ends at its first error, and one bad
/// line must not end the connection.
struct Lines(LinesCodec);

impl Lines {
    fn sort(result: Result<Option<String>, LinesCodecError>) -> io::Result<Option<Line>> {
        match result {
            Ok(line) => Ok(line.map(Line::Text)),
            Err(LinesCodecError::MaxLineLengthExceeded) => Ok(Some(Line::TooLong)),
            Err(LinesCodecError::Io(e)) if e.kind() == io::ErrorKind::InvalidData => {
                Ok(Some(Line::NotUtf8))
            }
            Err(LinesCodecError::Io(e)) => Err(e),
        }
    }
}

impl Decoder for Lines {
    type Item = Line;
    type Error = io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> io::Result<Option<Line>> {
        Lines::sort(self.0.decode(buf))
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> io::Result<Option<Line>> {
        Lines::sort(self.0.decode_eof(buf))
    }
}
