//! Toolboxes that programs register over D-Bus, the way a BlueZ agent is
//! registered: the program exports an object with the interface
//! [`TOOLBOX_INTERFACE`] and calls
//! `RegisterToolbox(s name, s tools_json, o toolbox)`; loopd then calls
//! `io.loopd.Toolbox1.Call(s tool, s arguments_json) -> (s result_json)`
//! on that object of that connection whenever a loop uses one of its
//! tools. A D-Bus error reply is a failed call the model reads. The
//! toolbox goes with `UnregisterToolbox(s name)`, or when its program
//! leaves the bus.

use super::error::Error;
use crate::tools::external::{CallFn, ExternalTool};
use crate::tools::{ExternalToolboxes, Source, Tool, ToolError, ToolSpec};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use zbus::zvariant::OwnedObjectPath;
use zbus::Connection;

/// The interface a registered toolbox object serves.
pub const TOOLBOX_INTERFACE: &str = "io.loopd.Toolbox1";

/// The toolboxes registered over D-Bus and the connections that own them.
pub struct DbusToolboxes {
    external: ExternalToolboxes,
    timeout: Duration,
    owners: Mutex<HashMap<String, String>>,
}

impl DbusToolboxes {
    /// Registered toolboxes go into `external`; a call may take `timeout`.
    pub fn new(external: ExternalToolboxes, timeout: Duration) -> DbusToolboxes {
        DbusToolboxes {
            external,
            timeout,
            owners: Mutex::default(),
        }
    }

    /// Registers (or, for its owner, replaces) toolbox `name` of `sender`,
    /// whose tools `tools_json` lists (OVOS `tool_json_list` entries) and
    /// whose object at `path` answers the calls. Returns how many tools.
    pub fn register(
        &self,
        conn: &Connection,
        sender: &str,
        name: &str,
        tools_json: &str,
        path: OwnedObjectPath,
    ) -> Result<usize, Error> {
        let listed: Value = serde_json::from_str(tools_json)
            .map_err(|e| Error::InvalidArgs(format!("tools_json is not JSON: {e}")))?;
        let listed = listed
            .as_array()
            .ok_or_else(|| Error::InvalidArgs("tools_json must be a JSON array of tools".into()))?;
        let specs = listed
            .iter()
            .map(ToolSpec::from_json)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| Error::InvalidArgs(format!("tools_json: {e}")))?;
        for spec in &specs {
            jsonschema::validator_for(&spec.argument_schema).map_err(|e| {
                Error::InvalidArgs(format!(
                    "tools_json: `{}`: invalid argument_schema: {e}",
                    spec.name
                ))
            })?;
        }
        let mut owners = lock(&self.owners);
        if let Some(owner) = owners.get(name).filter(|o| *o != sender) {
            return Err(Error::NotAllowed(format!(
                "the toolbox `{name}` is registered by {owner}"
            )));
        }
        let count = specs.len();
        let tools = specs
            .into_iter()
            .map(|spec| self.tool(conn, sender, &path, spec))
            .collect();
        self.external
            .put(name, Source::Dbus, tools)
            .map_err(|e| Error::InvalidArgs(e.to_string()))?;
        owners.insert(name.to_string(), sender.to_string());
        tracing::info!("D-Bus: {sender} registered toolbox `{name}` with {count} tool(s)");
        Ok(count)
    }

    /// Removes toolbox `name`, which only its owner may do.
    pub fn unregister(&self, sender: &str, name: &str) -> Result<(), Error> {
        let mut owners = lock(&self.owners);
        match owners.get(name) {
            None => Err(Error::InvalidArgs(format!(
                "no toolbox `{name}` is registered over D-Bus"
            ))),
            Some(owner) if owner != sender => Err(Error::NotAllowed(format!(
                "the toolbox `{name}` is registered by {owner}"
            ))),
            Some(_) => {
                owners.remove(name);
                self.external.remove(name);
                Ok(())
            }
        }
    }

    /// Removes every toolbox of a connection that left the bus; their names.
    pub fn owner_left(&self, sender: &str) -> Vec<String> {
        let mut owners = lock(&self.owners);
        let gone: Vec<String> = owners
            .iter()
            .filter(|(_, owner)| *owner == sender)
            .map(|(name, _)| name.clone())
            .collect();
        for name in &gone {
            owners.remove(name);
            self.external.remove(name);
        }
        gone
    }

    /// A tool whose calls go to `sender`'s object at `path`.
    fn tool(
        &self,
        conn: &Connection,
        sender: &str,
        path: &OwnedObjectPath,
        spec: ToolSpec,
    ) -> Arc<dyn Tool> {
        let (conn, sender, path) = (conn.clone(), sender.to_string(), path.clone());
        let name = spec.name.clone();
        let call: CallFn = Arc::new(move |arguments| {
            let (conn, sender, path, name) =
                (conn.clone(), sender.clone(), path.clone(), name.clone());
            Box::pin(async move { call(&conn, &sender, &path, &name, &arguments).await })
        });
        ExternalTool::shared(spec, self.timeout, call)
    }
}

/// `Call(tool, arguments_json)` on the toolbox object; its `result_json`
/// is read as JSON, or kept as text when it is not.
async fn call(
    conn: &Connection,
    sender: &str,
    path: &OwnedObjectPath,
    tool: &str,
    arguments: &Value,
) -> Result<Value, ToolError> {
    let reply = conn
        .call_method(
            Some(sender),
            path.as_str(),
            Some(TOOLBOX_INTERFACE),
            "Call",
            &(tool, arguments.to_string()),
        )
        .await
        .map_err(|e| {
            ToolError::Failed(match e {
                zbus::Error::MethodError(name, detail, _) => {
                    format!("{name}: {}", detail.unwrap_or_default())
                }
                other => format!("the D-Bus toolbox did not answer: {other}"),
            })
        })?;
    let text: String = reply
        .body()
        .deserialize()
        .map_err(|e| ToolError::Failed(format!("the D-Bus toolbox answered oddly: {e}")))?;
    Ok(serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}
