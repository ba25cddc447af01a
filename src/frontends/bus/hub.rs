//! A hosted message bus, as `ovos-messagebus` runs it: every client is
//! greeted with `connected`, and every frame a client sends goes to every
//! client (the sender too). loopd is a peer on it: it sees every frame and
//! its replies go to everyone.

use super::handler::{Handler, Peer};
use super::message::BusMessage;
use crate::frontends::{guard, origin};
use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::StatusCode;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_util::sync::CancellationToken;

/// Frames a client may fall behind by before it is dropped: this bounds
/// what a slow client can make the hub hold.
const BACKLOG: usize = 1024;

/// Replies from loopd waiting to be broadcast.
const QUEUE: usize = 256;

/// How long a new connection may take to finish the WebSocket handshake.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// How long one frame may take to go out before the client is dropped.
const WRITE: Duration = Duration::from_secs(30);

/// Listens on `addr` (`HOST:PORT`, or a `ws://HOST:PORT/ROUTE` URL) and
/// hosts the bus until `stop`; returns the address it listens on. With a
/// `secret`, only clients that present it are let in; without one, only a
/// loopback address is allowed, since anyone who reaches the bus can ask
/// and read every answer.
pub async fn host(
    addr: &str,
    handler: Handler,
    max_frame: usize,
    secret: Option<Secret>,
    stop: CancellationToken,
) -> Result<SocketAddr, String> {
    let bind = addr
        .strip_prefix("ws://")
        .map(|rest| rest.split('/').next().unwrap_or(rest))
        .unwrap_or(addr);
    let listener = TcpListener::bind(bind).await.map_err(|e| {
        format!(
            "cannot host a message bus on {bind}: {e} (if a bus already runs there, \
             join it with --bus ws://{bind}/core)"
        )
    })?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot host a message bus on {bind}: {e}"))?;
    if secret.is_none() && !local.ip().is_loopback() {
        return Err(format!(
            "refusing to host the message bus on {local} without a shared secret: it is \
             not a loopback address, and anyone who reaches it could ask and read every \
             answer. Set [bus] secret_file (clients then connect to \
             ws://HOST:PORT/core?secret=SECRET or send `Authorization: Bearer SECRET`), \
             or listen on 127.0.0.1"
        ));
    }
    let (frames, _) = broadcast::channel::<Message>(BACKLOG);
    let (out, mut replies) = mpsc::channel::<BusMessage>(QUEUE);
    let peer = Peer::new(out);
    handler.toolboxes().attach(peer.clone());
    handler.reach(&peer);
    let relay = frames.clone();
    handler.spawn(async move {
        while let Some(reply) = replies.recv().await {
            let _ = relay.send(Message::text(reply.to_json()));
        }
    });
    let config = WebSocketConfig::default()
        .max_message_size(Some(max_frame))
        .max_frame_size(Some(max_frame));
    let tasks = handler.clone();
    let slots = guard::Slots::new("bus");
    tasks.spawn(async move {
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                _ = stop.cancelled() => break,
            };
            match accepted {
                Ok((stream, from)) => {
                    let Some(slot) = slots.take(from) else {
                        continue;
                    };
                    let client = Client {
                        _slot: slot,
                        from,
                        secret: secret.clone(),
                        frames: frames.clone(),
                        handler: handler.clone(),
                        peer: peer.connection(),
                        stop: stop.clone(),
                    };
                    handler.spawn(client.serve(stream, config));
                }
                Err(e) => {
                    tracing::warn!("bus: accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    });
    Ok(local)
}

/// The shared secret clients of a hosted bus must present.
#[derive(Clone)]
pub struct Secret(std::sync::Arc<str>);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

impl Secret {
    /// A secret; it must not be empty.
    pub fn new(secret: &str) -> Result<Secret, String> {
        let secret = secret.trim();
        if secret.is_empty() {
            return Err("the bus secret is empty".into());
        }
        Ok(Secret(secret.into()))
    }

    /// Whether the handshake presents the secret: `?secret=` in the URL or
    /// an `Authorization: Bearer` header.
    fn admits(&self, request: &Request) -> bool {
        let in_query = request
            .uri()
            .query()
            .into_iter()
            .flat_map(|q| q.split('&'))
            .any(|pair| {
                pair.strip_prefix("secret=").is_some_and(|given| {
                    percent_encoding::percent_decode_str(given)
                        .decode_utf8()
                        .is_ok_and(|given| self.matches(&given))
                })
            });
        let in_header = request
            .headers()
            .get_all("authorization")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .filter_map(|v| v.strip_prefix("Bearer "))
            .any(|given| self.matches(given.trim()));
        in_query || in_header
    }

    /// Compares in time that depends only on the lengths.
    fn matches(&self, given: &str) -> bool {
        guard::same_secret(&self.0, given)
    }
}

/// The handshake check of one connection: a web page (an `Origin` from
/// another site, or a `Host` that is a name, not this machine:
/// [`origin`]) gets HTTP 403; with a secret, only a client that presents
/// it is let in, and the others get HTTP 401.
#[allow(clippy::result_large_err)] // tungstenite's `Callback` fixes the error type
fn admit(
    secret: Option<Secret>,
    from: SocketAddr,
) -> impl FnOnce(&Request, Response) -> Result<Response, ErrorResponse> + Unpin {
    move |request, response| {
        let header = |name| request.headers().get(name).and_then(|v| v.to_str().ok());
        let (host, origin) = (header("host"), header("origin"));
        if !origin::host_allowed(host) || !origin::origin_allowed(origin, host) {
            tracing::warn!(
                "bus: refused {from}: a web page (Origin {}, Host {})",
                origin.unwrap_or("none"),
                host.unwrap_or("none")
            );
            return Err(refuse(
                StatusCode::FORBIDDEN,
                "web pages may not use this bus",
            ));
        }
        match &secret {
            Some(secret) if !secret.admits(request) => {
                tracing::warn!("bus: refused {from}: it did not present the bus secret");
                Err(refuse(
                    StatusCode::UNAUTHORIZED,
                    "the bus secret is missing or wrong",
                ))
            }
            _ => Ok(response),
        }
    }
}

/// A refused handshake.
fn refuse(status: StatusCode, why: &str) -> ErrorResponse {
    let mut refusal = ErrorResponse::new(Some(why.into()));
    *refusal.status_mut() = status;
    refusal
}

/// One client of the hosted bus.
struct Client {
    _slot: tokio::sync::OwnedSemaphorePermit,
    from: SocketAddr,
    secret: Option<Secret>,
    frames: broadcast::Sender<Message>,
    handler: Handler,
    peer: Peer,
    stop: CancellationToken,
}

impl Client {
    async fn serve(self, stream: TcpStream, config: WebSocketConfig) {
        let from = self.from;
        let check = admit(self.secret.clone(), from);
        let handshake =
            tokio_tungstenite::accept_hdr_async_with_config(stream, check, Some(config));
        let ws = match tokio::time::timeout(HANDSHAKE, handshake).await {
            Ok(Ok(ws)) => ws,
            Ok(Err(e)) => {
                tracing::warn!("bus: {from} failed the WebSocket handshake: {e}");
                return;
            }
            Err(_) => {
                tracing::warn!("bus: {from} did not finish the WebSocket handshake");
                return;
            }
        };
        tracing::debug!("bus: {from} connected");
        let (mut sink, mut incoming) = ws.split();
        let greeting = BusMessage {
            context: json!({"session": {"session_id": "default"}})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            ..BusMessage::new("connected", json!({}))
        };
        if sink.send(Message::text(greeting.to_json())).await.is_err() {
            return;
        }
        let mut feed = self.frames.subscribe();
        self.handler.toolboxes().discover().await;
        let (closing, mut close_with) = oneshot::channel::<CloseFrame>();
        let writer_done = CancellationToken::new();
        let done = writer_done.clone().drop_guard();
        let writer = tokio::spawn(async move {
            let _done = done;
            loop {
                let frame = tokio::select! {
                    frame = feed.recv() => frame,
                    close = &mut close_with => {
                        if let Ok(frame) = close {
                            let _ = sink.send(Message::Close(Some(frame))).await;
                        }
                        break;
                    }
                };
                match frame {
                    Ok(frame) => match tokio::time::timeout(WRITE, sink.send(frame)).await {
                        Ok(Ok(())) => {}
                        Ok(Err(_)) => break,
                        Err(_) => {
                            tracing::warn!("bus: dropping {from}: it stopped reading");
                            return;
                        }
                    },
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::warn!(
                            "bus: dropping {from}: it fell {missed} frames behind the bus"
                        );
                        let frame = CloseFrame {
                            code: CloseCode::Again,
                            reason: "too slow: fell behind the bus".into(),
                        };
                        let _ = sink.send(Message::Close(Some(frame))).await;
                        break;
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                }
            }
            let _ = sink.close().await;
        });
        let close = loop {
            let next = tokio::select! {
                next = incoming.next() => next,
                _ = writer_done.cancelled() => break None,
                _ = self.stop.cancelled() => break Some(CloseFrame {
                    code: CloseCode::Away,
                    reason: "loopd is stopping".into(),
                }),
            };
            match next {
                Some(Ok(Message::Text(text))) => {
                    self.relay(text.as_str(), Message::Text(text.clone()))
                }
                Some(Ok(Message::Binary(_))) => {
                    tracing::warn!("bus: ignoring a binary frame from {from}");
                }
                Some(Ok(Message::Close(_))) | None => break None,
                Some(Ok(_)) => {}
                Some(Err(WsError::Capacity(e))) => {
                    tracing::warn!("bus: closing {from}: {e}");
                    break Some(CloseFrame {
                        code: CloseCode::Size,
                        reason: format!("frame too large: {e}").into(),
                    });
                }
                Some(Err(e)) => {
                    tracing::debug!("bus: {from} went away: {e}");
                    break None;
                }
            }
        };
        match close {
            Some(frame) => {
                let _ = closing.send(frame);
            }
            None => drop(closing),
        }
        self.peer.leave();
        let _ = writer.await;
        tracing::debug!("bus: {from} disconnected");
    }

    /// Re-broadcasts a well-formed frame and hands it to loopd; a malformed
    /// one is logged and goes no further.
    fn relay(&self, text: &str, frame: Message) {
        match BusMessage::parse(text) {
            Ok(message) => {
                let _ = self.frames.send(frame);
                self.handler.handle(&self.peer, message);
            }
            Err(e) => tracing::warn!("bus: ignoring a frame from {}: {e}", self.from),
        }
    }
}
