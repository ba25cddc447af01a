//! A hosted message bus, as `ovos-messagebus` runs it: every client is
//! greeted with `connected`, and every frame a client sends goes to every
//! client (the sender too). loopd is a peer on it: it sees every frame and
//! its replies go to everyone.

use super::handler::{Handler, Peer};
use super::message::BusMessage;
use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{broadcast, mpsc, oneshot};
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
/// hosts the bus until `stop`; returns the address it listens on.
pub async fn host(
    addr: &str,
    handler: Handler,
    max_frame: usize,
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
    let (frames, _) = broadcast::channel::<Message>(BACKLOG);
    let (out, mut replies) = mpsc::channel::<BusMessage>(QUEUE);
    let peer = Peer::new(out);
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
    tasks.spawn(async move {
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                _ = stop.cancelled() => break,
            };
            match accepted {
                Ok((stream, from)) => {
                    let client = Client {
                        from,
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

/// One client of the hosted bus.
struct Client {
    from: SocketAddr,
    frames: broadcast::Sender<Message>,
    handler: Handler,
    peer: Peer,
    stop: CancellationToken,
}

impl Client {
    async fn serve(self, stream: TcpStream, config: WebSocketConfig) {
        let from = self.from;
        let handshake = tokio_tungstenite::accept_async_with_config(stream, Some(config));
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
