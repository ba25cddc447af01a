//! Joins an existing bus (an `ovos-messagebus`) as a client, and keeps
//! rejoining it, with exponential backoff, whenever it goes away.

use super::handler::{Handler, Peer};
use super::message::BusMessage;
use futures_util::{SinkExt, StreamExt};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

/// First wait before reconnecting; doubled after each failure.
const FIRST_RETRY: Duration = Duration::from_millis(500);

/// Longest wait between attempts.
const LAST_RETRY: Duration = Duration::from_secs(10);

/// How long one connection attempt may take.
const CONNECT: Duration = Duration::from_secs(10);

/// Replies waiting to be sent to the bus.
const QUEUE: usize = 256;

/// Frames other peers send that loopd still reads (and then ignores if
/// over `max_frame`): a shared bus carries large frames (GUI pages).
const HARD_LIMIT: usize = 16 << 20;

/// Checks `url` and starts joining it in the background until `stop`.
/// Never fails because the bus is down: it keeps trying.
pub fn join(
    url: &str,
    handler: Handler,
    max_frame: usize,
    stop: CancellationToken,
) -> Result<(), String> {
    let logged = shown(url);
    if !url.starts_with("ws://") {
        return Err(format!(
            "bus URL `{logged}`: only ws:// URLs are supported (e.g. ws://127.0.0.1:8181/core)"
        ));
    }
    url.into_client_request()
        .map_err(|e| format!("bus URL `{logged}`: {e}"))?;
    let (out, replies) = mpsc::channel::<BusMessage>(QUEUE);
    let peer = Peer::new(out);
    handler.toolboxes().attach(peer.clone());
    handler.reach(&peer);
    let link = Link {
        url: url.to_string(),
        shown: shown(url),
        handler,
        peer,
        max_frame,
        replies,
        stop,
    };
    let tasks = link.handler.clone();
    tasks.spawn(link.run());
    Ok(())
}

/// `url` as it may be logged or shown in the service's status: the value
/// of a `secret=` query parameter replaced by `***`.
pub fn shown(url: &str) -> String {
    let Some((base, query)) = url.split_once('?') else {
        return url.to_string();
    };
    let query: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, _)) if key.eq_ignore_ascii_case("secret") => format!("{key}=***"),
            _ => pair.to_string(),
        })
        .collect();
    format!("{base}?{}", query.join("&"))
}

/// The connection to a joined bus, across reconnects.
struct Link {
    url: String,
    /// The URL as logged: its secret left out ([`shown`]).
    shown: String,
    handler: Handler,
    peer: Peer,
    max_frame: usize,
    replies: mpsc::Receiver<BusMessage>,
    stop: CancellationToken,
}

impl Link {
    async fn run(mut self) {
        let config = WebSocketConfig::default()
            .max_message_size(Some(HARD_LIMIT.max(self.max_frame)))
            .max_frame_size(Some(HARD_LIMIT.max(self.max_frame)));
        let mut retry = FIRST_RETRY;
        let mut failures = 0u32;
        while !self.stop.is_cancelled() {
            let attempt =
                tokio_tungstenite::connect_async_with_config(self.url.as_str(), Some(config), true);
            match tokio::time::timeout(CONNECT, attempt).await {
                Ok(Ok((ws, _))) => {
                    tracing::info!("bus: joined {}", self.shown);
                    retry = FIRST_RETRY;
                    failures = 0;
                    self.connected(ws).await;
                    if self.stop.is_cancelled() {
                        break;
                    }
                    tracing::warn!("bus: lost {}; reconnecting", self.shown);
                }
                outcome => {
                    let why = match outcome {
                        Ok(Err(e)) => e.to_string(),
                        _ => "timed out".to_string(),
                    };
                    if failures == 0 {
                        tracing::warn!(
                            "bus: cannot reach {} ({why}); retrying with backoff up to {} s",
                            self.shown,
                            LAST_RETRY.as_secs()
                        );
                    } else {
                        tracing::debug!("bus: cannot reach {} ({why})", self.shown);
                    }
                    failures += 1;
                    self.wait(retry).await;
                    retry = (retry * 2).min(LAST_RETRY);
                }
            }
        }
        self.peer.leave();
    }

    /// Waits before the next attempt; replies made meanwhile are dropped,
    /// since nobody can receive them.
    async fn wait(&mut self, delay: Duration) {
        let until = tokio::time::sleep(delay);
        tokio::pin!(until);
        let mut dropped = 0usize;
        loop {
            tokio::select! {
                _ = &mut until => break,
                _ = self.stop.cancelled() => break,
                reply = self.replies.recv() => match reply {
                    Some(_) => dropped += 1,
                    None => break,
                },
            }
        }
        if dropped > 0 {
            tracing::warn!("bus: {dropped} replies dropped while the bus was away");
        }
    }

    async fn connected<S>(&mut self, ws: tokio_tungstenite::WebSocketStream<S>)
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    {
        let (mut sink, mut incoming) = ws.split();
        self.handler.toolboxes().discover().await;
        loop {
            tokio::select! {
                next = incoming.next() => match next {
                    Some(Ok(Message::Text(text))) => self.received(text.as_str()),
                    Some(Ok(Message::Close(_))) | None => break,
                    Some(Ok(_)) => {}
                    Some(Err(e)) => {
                        tracing::debug!("bus: read from {} failed: {e}", self.shown);
                        break;
                    }
                },
                reply = self.replies.recv() => {
                    let Some(reply) = reply else { break };
                    if let Err(e) = sink.send(Message::text(reply.to_json())).await {
                        tracing::warn!("bus: a reply ({}) was lost: {e}", reply.kind);
                        break;
                    }
                }
                _ = self.stop.cancelled() => {
                    let _ = sink.close().await;
                    break;
                }
            }
        }
    }

    fn received(&self, text: &str) {
        if text.len() > self.max_frame {
            tracing::warn!(
                "bus: ignoring a frame of {} bytes (more than {})",
                text.len(),
                self.max_frame
            );
            return;
        }
        match BusMessage::parse(text) {
            Ok(message) => self.handler.handle(&self.peer, message),
            Err(e) => tracing::warn!("bus: ignoring a frame: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::shown;

    #[test]
    fn a_bus_secret_is_never_shown() {
        assert_eq!(
            shown("ws://10.0.0.2:8181/core?route=a&secret=open%20sesame"),
            "ws://10.0.0.2:8181/core?route=a&secret=***"
        );
        assert_eq!(
            shown("ws://127.0.0.1:8181/core"),
            "ws://127.0.0.1:8181/core"
        );
    }
}
