//! Toolboxes that programs register over D-Bus, the way a BlueZ agent is
//! registered: the program exports an object with the interface
//! [`TOOLBOX_INTERFACE`] and calls
//! `RegisterToolbox(s name, s tools_json, o toolbox)`; loopd then calls
//! `io.loopd.Toolbox1.Call(s tool, s arguments_json) -> (s result_json)`
//! on that object of that connection whenever a loop uses one of its
//! tools. A D-Bus error reply is a failed call the model reads. The
//! toolbox goes with `UnregisterToolbox(s name)`, or when its program
//! leaves the bus.
//!
//! Who may register: root, loopd's own user, and members of the group
//! `[dbus] toolbox_group`. A name belongs to the Unix user that first
//! registered it for as long as loopd runs: when its program leaves, a
//! restart of it (the same user) takes the name back, and no other user
//! can take it meanwhile.

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

/// Who may register toolboxes: root, loopd's own user and the members of
/// one group.
#[derive(Debug, Clone)]
pub struct Registrars {
    own_uid: u32,
    group: Option<(String, u32)>,
}

impl Registrars {
    /// Root, this process's user and, when named, the members of `group`;
    /// fails when no such group exists.
    pub fn new(group: Option<&str>) -> Result<Registrars, String> {
        // SAFETY: geteuid has no preconditions.
        let own_uid = unsafe { libc::geteuid() };
        let group = match group {
            None => None,
            Some(name) => Some((name.to_string(), group_id(name)?)),
        };
        Ok(Registrars { own_uid, group })
    }

    /// Refuses a caller who is none of them.
    fn admit(&self, caller: &Registrant) -> Result<(), Error> {
        let member = self
            .group
            .as_ref()
            .is_some_and(|(_, gid)| caller.groups.contains(gid));
        if caller.uid == 0 || caller.uid == self.own_uid || member {
            return Ok(());
        }
        Err(Error::NotAllowed(format!(
            "uid {} may not register toolboxes: only root, loopd's own user{}",
            caller.uid,
            match &self.group {
                Some((name, _)) => format!(" and members of the group `{name}` may"),
                None => " may (a group may be allowed with [dbus] toolbox_group)".into(),
            }
        )))
    }
}

/// The group id of the group `name`.
fn group_id(name: &str) -> Result<u32, String> {
    let c_name = std::ffi::CString::new(name).map_err(|_| format!("bad group name `{name}`"))?;
    let mut group: libc::group = unsafe { std::mem::zeroed() };
    let mut buf = vec![0 as libc::c_char; 16 * 1024];
    let mut found: *mut libc::group = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call and `buf` outlives it;
    // the result is read only through `found`, which points into `group`.
    let status = unsafe {
        libc::getgrnam_r(
            c_name.as_ptr(),
            &mut group,
            buf.as_mut_ptr(),
            buf.len(),
            &mut found,
        )
    };
    if status != 0 || found.is_null() {
        return Err(format!("no group named `{name}`"));
    }
    Ok(group.gr_gid)
}

/// The caller of `RegisterToolbox`, as the bus vouches for it.
#[derive(Debug, Clone)]
pub struct Registrant {
    /// Its unique connection name.
    pub sender: String,
    /// The Unix user owning the connection.
    pub uid: u32,
    /// The groups of its process.
    pub groups: Vec<u32>,
}

/// The toolboxes registered over D-Bus and the connections that own them.
pub struct DbusToolboxes {
    external: ExternalToolboxes,
    timeout: Duration,
    registrars: Registrars,
    owners: Mutex<HashMap<String, String>>,
    /// The Unix user each name belongs to, kept after its program left.
    claimed: Mutex<HashMap<String, u32>>,
}

impl DbusToolboxes {
    /// Registered toolboxes go into `external`; a call may take `timeout`;
    /// `registrars` may register.
    pub fn new(
        external: ExternalToolboxes,
        timeout: Duration,
        registrars: Registrars,
    ) -> DbusToolboxes {
        DbusToolboxes {
            external,
            timeout,
            registrars,
            owners: Mutex::default(),
            claimed: Mutex::default(),
        }
    }

    /// Registers (or, for its owner, replaces) toolbox `name` of
    /// `registrant`, whose tools `tools_json` lists (OVOS `tool_json_list`
    /// entries) and whose object at `path` answers the calls. Returns how
    /// many tools.
    pub fn register(
        &self,
        conn: &Connection,
        registrant: &Registrant,
        name: &str,
        tools_json: &str,
        path: OwnedObjectPath,
    ) -> Result<usize, Error> {
        self.registrars.admit(registrant)?;
        let sender = registrant.sender.as_str();
        if let Some(uid) = lock(&self.claimed)
            .get(name)
            .filter(|uid| **uid != registrant.uid)
        {
            return Err(Error::NotAllowed(format!(
                "the toolbox name `{name}` belongs to uid {uid}"
            )));
        }
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
        lock(&self.claimed).insert(name.to_string(), registrant.uid);
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
