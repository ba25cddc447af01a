//! OVOS skill toolboxes found on the bus, offered to the loops as tools.
//!
//! loopd asks `ovos.persona.tools.discover` when it joins a bus and when a
//! client connects to the bus it hosts; every
//! `ovos.persona.tools.discover.response` (asked for or announced) puts the
//! toolbox, named by its `toolbox_id`, in the shared
//! [`ExternalToolboxes`]. A call is `ovos.persona.tools.<id>.call` with
//! `{"name", "kwargs"}`, answered by `…call.response` with `{"result"}` or
//! `{"error"}`; the answer is matched to its call by a random key loopd
//! puts in the context, which OVOS replies carry back, and is taken only
//! from the connection that offered the toolbox. A toolbox id belongs to
//! that connection while it stays: another connection offering the same id
//! is ignored. A toolbox whose connection to the hosted bus closes is
//! removed, and its calls still waiting fail.

use super::handler::Peer;
use super::message::BusMessage;
use crate::tools::external::{CallFn, ExternalTool};
use crate::tools::{ExternalToolboxes, Source, Tool, ToolError, ToolSpec};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;

/// Asks every toolbox on the bus to describe itself.
pub const DISCOVER: &str = "ovos.persona.tools.discover";

/// A toolbox describing itself.
pub const DISCOVERED: &str = "ovos.persona.tools.discover.response";

/// The context key that matches an answer to its call.
const CALL_KEY: &str = "loopd_tool_call";

/// The bus's toolboxes: where discovery and calls are sent, and the calls
/// waiting for their answers.
#[derive(Clone)]
pub struct BusToolboxes {
    external: ExternalToolboxes,
    timeout: Duration,
    bus: Arc<Mutex<Option<Peer>>>,
    waiting: Arc<Mutex<HashMap<String, Waiting>>>,
    owners: Arc<Mutex<HashMap<String, Peer>>>,
}

/// A call waiting for its answer: the toolbox asked, the connection that
/// may answer, and where the answer goes.
struct Waiting {
    toolbox: String,
    owner: Peer,
    answer: oneshot::Sender<BusMessage>,
}

impl BusToolboxes {
    /// Toolboxes found on the bus go into `external`; a call may take
    /// `timeout`.
    pub fn new(external: ExternalToolboxes, timeout: Duration) -> BusToolboxes {
        BusToolboxes {
            external,
            timeout,
            bus: Arc::default(),
            waiting: Arc::default(),
            owners: Arc::default(),
        }
    }

    /// Sends discovery and calls through `bus` (the hosted bus, or the link
    /// to a joined one).
    pub fn attach(&self, bus: Peer) {
        *lock(&self.bus) = Some(bus);
    }

    /// Asks every toolbox on the bus to describe itself.
    pub async fn discover(&self) {
        let Some(bus) = lock(&self.bus).clone() else {
            return;
        };
        let mut message = BusMessage::new(DISCOVER, json!({}));
        message.context.insert("source".into(), json!("loopd"));
        bus.send(message).await;
    }

    /// Takes the toolbox messages: a toolbox describing itself (registered
    /// until `from` leaves) and answers to calls. `false` for the rest.
    pub fn received(&self, from: &Peer, message: &BusMessage) -> bool {
        if message.kind == DISCOVERED {
            self.found(from, message);
            return true;
        }
        let is_answer = message.kind.starts_with("ovos.persona.tools.")
            && message.kind.ends_with(".call.response");
        if !is_answer {
            return false;
        }
        let key = message.context.get(CALL_KEY).and_then(Value::as_str);
        let mut waiting = lock(&self.waiting);
        let Some(key) = key.filter(|key| waiting.contains_key(*key)) else {
            tracing::debug!("bus: `{}` for no call of loopd's", message.kind);
            return true;
        };
        if waiting.get(key).is_some_and(|w| !w.owner.is(from)) {
            tracing::warn!(
                "bus: ignored `{}` from a connection that does not hold the toolbox",
                message.kind
            );
            return true;
        }
        if let Some(waiter) = waiting.remove(key) {
            let _ = waiter.answer.send(message.clone());
        }
        true
    }

    fn found(&self, from: &Peer, message: &BusMessage) {
        let Some(id) = message.data.get("toolbox_id").and_then(Value::as_str) else {
            return tracing::warn!("bus: `{DISCOVERED}` without a `toolbox_id`");
        };
        let Some(listed) = message.data.get("tools").and_then(Value::as_array) else {
            return tracing::warn!("bus: toolbox `{id}` sent no `tools` list");
        };
        let mut tools = Vec::new();
        for entry in listed {
            match ToolSpec::from_json(entry) {
                Ok(spec) => tools.push(self.tool(id, spec)),
                Err(why) => tracing::warn!("bus: toolbox `{id}`: a tool is skipped: {why}"),
            }
        }
        let count = tools.len();
        let mut owners = lock(&self.owners);
        let owner = owners.get(id).filter(|owner| !owner.has_left());
        if owner.is_some_and(|owner| !owner.is(from)) {
            return tracing::warn!(
                "bus: toolbox `{id}` offered by a second connection; the first keeps it"
            );
        }
        let new_owner = owner.is_none();
        match self.external.put(id, Source::Bus, tools) {
            Ok(()) if new_owner => {
                owners.insert(id.to_string(), from.clone());
                tracing::info!("bus: toolbox `{id}` with {count} tool(s)");
                let (me, id, left) = (self.clone(), id.to_string(), from.clone());
                tokio::spawn(async move {
                    left.gone().await;
                    let mut owners = lock(&me.owners);
                    if !owners.get(&id).is_some_and(|owner| owner.is(&left)) {
                        return;
                    }
                    owners.remove(&id);
                    if me.external.remove(&id) {
                        tracing::info!("bus: toolbox `{id}` left with its connection");
                    }
                    lock(&me.waiting).retain(|_, call| call.toolbox != id);
                });
            }
            Ok(()) => tracing::debug!("bus: toolbox `{id}` described itself again"),
            Err(e) => tracing::warn!("bus: toolbox `{id}`: {e}"),
        }
    }

    /// One of toolbox `id`'s tools, called over the bus.
    fn tool(&self, id: &str, spec: ToolSpec) -> Arc<dyn Tool> {
        let me = self.clone();
        let (id, name) = (id.to_string(), spec.name.clone());
        let call: CallFn = Arc::new(move |kwargs| {
            let (me, id, name) = (me.clone(), id.clone(), name.clone());
            Box::pin(async move { me.call(&id, &name, kwargs).await })
        });
        ExternalTool::shared(spec, self.timeout, call)
    }

    async fn call(&self, id: &str, name: &str, kwargs: Value) -> Result<Value, ToolError> {
        let bus = lock(&self.bus)
            .clone()
            .ok_or_else(|| ToolError::Failed("loopd is not on a message bus".into()))?;
        let owner = lock(&self.owners)
            .get(id)
            .cloned()
            .ok_or_else(|| ToolError::Failed(format!("toolbox `{id}` has left the bus")))?;
        let key = format!("{:032x}", rand::random::<u128>());
        let (answered, answer) = oneshot::channel();
        let waiting = Waiting {
            toolbox: id.to_string(),
            owner,
            answer: answered,
        };
        lock(&self.waiting).insert(key.clone(), waiting);
        let _forget = Forget {
            waiting: &self.waiting,
            key: &key,
        };
        let mut message = BusMessage::new(
            &format!("ovos.persona.tools.{id}.call"),
            json!({"name": name, "kwargs": kwargs}),
        );
        message.context.insert("source".into(), json!("loopd"));
        message.context.insert("destination".into(), json!(id));
        message.context.insert(CALL_KEY.into(), json!(key));
        if !bus.send(message).await {
            return Err(ToolError::Failed("the message bus is gone".into()));
        }
        let answer = answer.await.map_err(|_| {
            ToolError::Failed(format!("toolbox `{id}` left the bus during the call"))
        })?;
        match (answer.data.get("error"), answer.data.get("result")) {
            (Some(error), _) if !error.is_null() => Err(ToolError::Failed(match error {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            })),
            (_, Some(result)) => Ok(result.clone()),
            _ => Err(ToolError::Failed(format!(
                "toolbox `{id}` answered with neither `result` nor `error`"
            ))),
        }
    }
}

/// Forgets a call's waiter when the call ends, answered or not.
struct Forget<'a> {
    waiting: &'a Mutex<HashMap<String, Waiting>>,
    key: &'a str,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        lock(self.waiting).remove(self.key);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn answers_are_matched_to_calls_by_key_and_connection() {
        let external = ExternalToolboxes::default();
        let boxes = BusToolboxes::new(external.clone(), Duration::from_secs(5));
        let (out, mut sent) = tokio::sync::mpsc::channel(8);
        let bus = Peer::new(out);
        boxes.attach(bus.clone());
        let announce = BusMessage::new(
            DISCOVERED,
            json!({"toolbox_id": "station", "tools": [{"name": "code", "description": "d",
                "argument_schema": {"type": "object"}}]}),
        );
        assert!(boxes.received(&bus, &announce));
        assert!(external.contains("station"));
        let other = bus.connection();
        let squatter = BusMessage::new(
            DISCOVERED,
            json!({"toolbox_id": "station", "tools": [{"name": "open", "description": "d",
                "argument_schema": {"type": "object"}}]}),
        );
        assert!(boxes.received(&other, &squatter));
        assert!(
            lock(&boxes.owners)["station"].is(&bus),
            "a second connection took it"
        );

        let calling = tokio::spawn({
            let boxes = boxes.clone();
            async move { boxes.call("station", "code", json!({"s": 1})).await }
        });
        let call = sent.recv().await.unwrap();
        assert_eq!(call.kind, "ovos.persona.tools.station.call");
        assert_eq!(call.data["kwargs"], json!({"s": 1}));
        let key = call.context[CALL_KEY].as_str().unwrap();
        assert_eq!(key.len(), 32, "{key}");
        let forged = call.reply(
            "ovos.persona.tools.station.call.response",
            json!({"result": "forged"}),
        );
        assert!(boxes.received(&other, &forged));
        assert!(
            lock(&boxes.waiting).contains_key(key),
            "an answer from another connection was taken"
        );
        let stranger = call.reply(
            "ovos.persona.tools.station.call.response",
            json!({"result": "wrong"}),
        );
        let mut stranger = stranger;
        stranger.context.insert(CALL_KEY.into(), json!("other"));
        assert!(boxes.received(&bus, &stranger));
        let answer = call.reply(
            "ovos.persona.tools.station.call.response",
            json!({"error": "ValueError: locked"}),
        );
        assert!(boxes.received(&bus, &answer));
        assert_eq!(
            calling.await.unwrap(),
            Err(ToolError::Failed("ValueError: locked".into()))
        );
        assert!(lock(&boxes.waiting).is_empty());

        bus.leave();
        for _ in 0..100 {
            if !external.contains("station") {
                return;
            }
            tokio::task::yield_now().await;
        }
        panic!("the toolbox stayed after its connection left");
    }
}
