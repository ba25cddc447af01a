//! Wyoming's framing: a JSON header line with `type`, optional `data`,
//! `data_length` and `payload_length`; then `data_length` bytes of JSON
//! merged into `data`; then `payload_length` bytes of payload (audio).

use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The protocol version loopd writes into its headers.
pub const VERSION: &str = "1.10.2";
/// Longest header line accepted.
const MAX_HEADER_BYTES: u64 = 64 * 1024;
/// Largest `data` block accepted.
const MAX_DATA_BYTES: usize = 1 << 20;
/// Largest payload accepted (about 2 minutes of 16 kHz 16-bit audio).
const MAX_PAYLOAD_BYTES: usize = 4 << 20;

/// One Wyoming event.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Event {
    /// Its type, e.g. `transcribe`, `audio-chunk`.
    pub kind: String,
    /// Its data (the header's and the data block's, merged).
    pub data: Map<String, Value>,
    /// Its payload, empty when it has none.
    pub payload: Vec<u8>,
}

impl Event {
    /// An event with data.
    pub fn new(kind: &str, data: Value) -> Event {
        Event {
            kind: kind.to_string(),
            data: match data {
                Value::Object(map) => map,
                _ => Map::new(),
            },
            payload: Vec::new(),
        }
    }

    /// A text field of the data.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.data.get(key).and_then(Value::as_str)
    }

    /// A whole-number field of the data.
    pub fn number(&self, key: &str) -> Option<u64> {
        self.data.get(key).and_then(Value::as_u64)
    }
}

/// Why a stream is no longer readable as Wyoming events.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The connection failed or ended inside an event.
    #[error("connection: {0}")]
    Io(#[from] std::io::Error),
    /// The bytes are not a Wyoming event.
    #[error("not a Wyoming event: {0}")]
    Malformed(String),
}

/// Reads the next event; `None` when the peer closed the connection between
/// events.
pub async fn read_event<R: AsyncBufRead + Unpin>(
    reader: &mut R,
) -> Result<Option<Event>, FrameError> {
    let mut line = Vec::new();
    let read = (&mut *reader)
        .take(MAX_HEADER_BYTES)
        .read_until(b'\n', &mut line)
        .await?;
    if read == 0 {
        return Ok(None);
    }
    if line.last() != Some(&b'\n') {
        return Err(FrameError::Malformed(if read as u64 >= MAX_HEADER_BYTES {
            format!("a header line longer than {MAX_HEADER_BYTES} bytes")
        } else {
            "the connection ended inside a header".into()
        }));
    }
    let header: Value = serde_json::from_slice(&line)
        .map_err(|e| FrameError::Malformed(format!("the header is not JSON: {e}")))?;
    let kind = header
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| FrameError::Malformed("the header has no `type`".into()))?
        .to_string();
    let mut data = match header.get("data") {
        Some(Value::Object(map)) => map.clone(),
        None | Some(Value::Null) => Map::new(),
        Some(_) => return Err(FrameError::Malformed("`data` is not an object".into())),
    };
    let length = |key: &str, max: usize| -> Result<usize, FrameError> {
        match header.get(key) {
            None | Some(Value::Null) => Ok(0),
            Some(v) => match v.as_u64() {
                Some(n) if n as usize <= max => Ok(n as usize),
                Some(n) => Err(FrameError::Malformed(format!(
                    "`{key}` {n} is over the limit of {max} bytes"
                ))),
                None => Err(FrameError::Malformed(format!("`{key}` is not a length"))),
            },
        }
    };
    let data_length = length("data_length", MAX_DATA_BYTES)?;
    let payload_length = length("payload_length", MAX_PAYLOAD_BYTES)?;
    if data_length > 0 {
        let mut block = vec![0; data_length];
        reader.read_exact(&mut block).await?;
        match serde_json::from_slice(&block) {
            Ok(Value::Object(more)) => data.extend(more),
            _ => {
                return Err(FrameError::Malformed(
                    "the data block is not a JSON object".into(),
                ))
            }
        }
    }
    let mut payload = vec![0; payload_length];
    reader.read_exact(&mut payload).await?;
    Ok(Some(Event {
        kind,
        data,
        payload,
    }))
}

/// Writes an event as the Python library does: the data in its own block.
pub async fn write_event<W: AsyncWrite + Unpin>(
    writer: &mut W,
    event: &Event,
) -> std::io::Result<()> {
    let mut header = json!({ "type": event.kind, "version": VERSION });
    let data = if event.data.is_empty() {
        Vec::new()
    } else {
        serde_json::to_vec(&event.data)?
    };
    if !data.is_empty() {
        header["data_length"] = json!(data.len());
    }
    if !event.payload.is_empty() {
        header["payload_length"] = json!(event.payload.len());
    }
    let mut bytes = serde_json::to_vec(&header)?;
    bytes.push(b'\n');
    bytes.extend(data);
    bytes.extend(&event.payload);
    writer.write_all(&bytes).await?;
    writer.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn read_all(bytes: &[u8]) -> Vec<Result<Event, String>> {
        let mut reader = tokio::io::BufReader::new(bytes);
        let mut out = Vec::new();
        loop {
            match read_event(&mut reader).await {
                Ok(Some(e)) => out.push(Ok(e)),
                Ok(None) => return out,
                Err(e) => {
                    out.push(Err(e.to_string()));
                    return out;
                }
            }
        }
    }

    #[tokio::test]
    async fn header_data_and_payload_round_trip() {
        let mut event = Event::new("audio-chunk", json!({"rate": 16000, "width": 2}));
        event.payload = vec![1, 2, 3, 4];
        let mut bytes = Vec::new();
        write_event(&mut bytes, &event).await.unwrap();
        write_event(&mut bytes, &Event::new("describe", json!({})))
            .await
            .unwrap();
        let events = read_all(&bytes).await;
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].as_ref().unwrap(), &event);
        assert_eq!(events[1].as_ref().unwrap().kind, "describe");
    }

    #[tokio::test]
    async fn data_in_the_header_and_the_block_merge() {
        let bytes =
            b"{\"type\":\"transcript\",\"data\":{\"a\":1},\"data_length\":12}\n{\"text\":\"x\"}";
        let events = read_all(bytes).await;
        let event = events[0].as_ref().unwrap();
        assert_eq!(event.number("a"), Some(1));
        assert_eq!(event.text("text"), Some("x"));
    }

    #[tokio::test]
    async fn bad_frames_are_errors() {
        for (bytes, says) in [
            (&b"not json\n"[..], "not JSON"),
            (b"{\"data\":{}}\n", "no `type`"),
            (
                b"{\"type\":\"x\",\"payload_length\":99999999}\n",
                "over the limit",
            ),
            (
                b"{\"type\":\"x\",\"data_length\":5}\n[1,2]",
                "not a JSON object",
            ),
            (b"{\"type\":\"x\",\"payload_length\":10}\nabc", "connection"),
            (b"{\"type\":\"x\"", "inside a header"),
        ] {
            let events = read_all(bytes).await;
            let error = events.last().unwrap().as_ref().unwrap_err();
            assert!(
                error.contains(says),
                "{error} for {:?}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
}
