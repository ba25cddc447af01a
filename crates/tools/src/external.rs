//! Toolboxes that live outside loopd and come and go while it runs: MCP
//! servers, OVOS skills on the message bus, programs on D-Bus.
//!
//! Each source turns what its peer publishes into [`ExternalTool`]s (a spec
//! and an async call) and puts them in the shared [`ExternalToolboxes`]
//! under the toolbox's name; requests then name that toolbox as they name a
//! built-in one. Every call has a timeout and a result size cap, and a
//! failure comes back as a [`ToolError`] the model reads as an observation.

use super::{Tool, ToolBox, ToolError, ToolSpec, TOOLBOXES};
use futures_util::future::BoxFuture;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// How long an external call may take unless its source says otherwise.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(20);

/// The largest result an external tool may return, as JSON text. The loop
/// shortens observations further; this only keeps a runaway peer from
/// filling memory.
pub const MAX_RESULT_BYTES: usize = 1 << 20;

/// Where a toolbox comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// Compiled into loopd (`clock`, `math`, `files`).
    Builtin,
    /// An MCP server.
    Mcp,
    /// An OVOS skill's toolbox on the message bus.
    Bus,
    /// A program that registered it over D-Bus.
    Dbus,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Source::Builtin => "builtin",
            Source::Mcp => "mcp",
            Source::Bus => "bus",
            Source::Dbus => "dbus",
        })
    }
}

/// The call behind an external tool: arguments in, a future of the result out.
pub type CallFn = Arc<dyn Fn(Value) -> BoxFuture<'static, Result<Value, ToolError>> + Send + Sync>;

/// A tool whose work happens in another process, reached through the async
/// runtime it was made on.
pub struct ExternalTool {
    spec: ToolSpec,
    timeout: Duration,
    call: CallFn,
    runtime: tokio::runtime::Handle,
}

impl ExternalTool {
    /// A tool calling `call`, at most `timeout` per call. Must be made on
    /// the tokio runtime that will drive its calls.
    pub fn shared(spec: ToolSpec, timeout: Duration, call: CallFn) -> Arc<dyn Tool> {
        Arc::new(ExternalTool {
            spec,
            timeout,
            call,
            runtime: tokio::runtime::Handle::current(),
        })
    }
}

impl Tool for ExternalTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    /// Blocks the calling thread, which must not be one of the runtime's
    /// async workers (the loop calls tools from its blocking pool).
    fn call(&self, arguments: Value) -> Result<Value, ToolError> {
        let call = (self.call)(arguments);
        let value = self
            .runtime
            .block_on(async { tokio::time::timeout(self.timeout, call).await })
            .map_err(|_| {
                ToolError::Failed(format!(
                    "`{}` gave no answer within {} s",
                    self.spec.name,
                    self.timeout.as_secs_f32()
                ))
            })??;
        let bytes = serde_json::to_string(&value).map_or(0, |s| s.len());
        if bytes > MAX_RESULT_BYTES {
            return Err(ToolError::Failed(format!(
                "`{}` returned {bytes} bytes, more than the {MAX_RESULT_BYTES} allowed",
                self.spec.name
            )));
        }
        Ok(value)
    }
}

/// One external toolbox.
#[derive(Clone)]
struct Entry {
    source: Source,
    tools: Vec<Arc<dyn Tool>>,
}

/// Why an external toolbox was not put in the registry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PutError {
    /// The name is a built-in toolbox's.
    #[error("`{0}` is a built-in toolbox's name")]
    Builtin(String),
    /// Another source already has a toolbox of that name.
    #[error("a toolbox named `{name}` is already offered by {by}")]
    Taken {
        /// The name.
        name: String,
        /// Who offers it.
        by: Source,
    },
    /// The name is empty or has characters a tool list cannot carry.
    #[error("toolbox name `{0}` must be letters, digits, `-`, `_` or `.`")]
    BadName(String),
}

/// The external toolboxes loopd knows now, shared by every request (a
/// cheap handle: clones see the same toolboxes).
#[derive(Clone, Default)]
pub struct ExternalToolboxes {
    boxes: Arc<RwLock<BTreeMap<String, Entry>>>,
}

impl std::fmt::Debug for ExternalToolboxes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl ExternalToolboxes {
    /// Adds a toolbox, or replaces the tools of one from the same source
    /// (a skill announcing itself again, a server restarted).
    pub fn put(
        &self,
        name: &str,
        source: Source,
        tools: Vec<Arc<dyn Tool>>,
    ) -> Result<(), PutError> {
        if !super::is_toolbox_name(name) {
            return Err(PutError::BadName(name.to_string()));
        }
        if TOOLBOXES.contains(&name) {
            return Err(PutError::Builtin(name.to_string()));
        }
        let mut boxes = self.boxes.write().unwrap_or_else(|e| e.into_inner());
        if let Some(existing) = boxes.get(name) {
            if existing.source != source {
                return Err(PutError::Taken {
                    name: name.to_string(),
                    by: existing.source,
                });
            }
        }
        boxes.insert(name.to_string(), Entry { source, tools });
        Ok(())
    }

    /// Removes a toolbox; whether it was there.
    pub fn remove(&self, name: &str) -> bool {
        let mut boxes = self.boxes.write().unwrap_or_else(|e| e.into_inner());
        boxes.remove(name).is_some()
    }

    /// A toolbox by name, as it is now.
    pub fn get(&self, name: &str) -> Option<ToolBox> {
        let boxes = self.boxes.read().unwrap_or_else(|e| e.into_inner());
        boxes.get(name).map(|entry| ToolBox {
            name: name.to_string(),
            tools: entry.tools.clone(),
        })
    }

    /// Whether a toolbox of this name is here.
    pub fn contains(&self, name: &str) -> bool {
        let boxes = self.boxes.read().unwrap_or_else(|e| e.into_inner());
        boxes.contains_key(name)
    }

    /// Every toolbox's name, sorted.
    pub fn names(&self) -> Vec<String> {
        let boxes = self.boxes.read().unwrap_or_else(|e| e.into_inner());
        boxes.keys().cloned().collect()
    }

    /// Every toolbox: name, source and tool specs, sorted by name.
    pub fn list(&self) -> Vec<(String, Source, Vec<ToolSpec>)> {
        let boxes = self.boxes.read().unwrap_or_else(|e| e.into_inner());
        boxes
            .iter()
            .map(|(name, entry)| {
                let specs = entry.tools.iter().map(|t| t.spec().clone()).collect();
                (name.clone(), entry.source, specs)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(name: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: "test".into(),
            argument_schema: json!({"type": "object"}),
            output_schema: json!({}),
        }
    }

    fn tool(name: &str, call: CallFn) -> Arc<dyn Tool> {
        ExternalTool::shared(spec(name), Duration::from_millis(200), call)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn calls_time_out_and_oversized_results_are_refused() {
        let slow = tool(
            "slow",
            Arc::new(|_| {
                Box::pin(async {
                    tokio::time::sleep(Duration::from_secs(5)).await;
                    Ok(json!(1))
                })
            }),
        );
        let huge = tool(
            "huge",
            Arc::new(|_| Box::pin(async { Ok(json!("x".repeat(MAX_RESULT_BYTES))) })),
        );
        let echo = tool("echo", Arc::new(|v| Box::pin(async move { Ok(v) })));
        let (slow, huge, echo) = tokio::task::spawn_blocking(move || {
            (
                slow.call(json!({})),
                huge.call(json!({})),
                echo.call(json!({"a": 1})),
            )
        })
        .await
        .unwrap();
        assert!(matches!(slow, Err(ToolError::Failed(m)) if m.contains("no answer within 0.2 s")));
        assert!(matches!(huge, Err(ToolError::Failed(m)) if m.contains("more than the")));
        assert_eq!(echo, Ok(json!({"a": 1})));
    }

    #[tokio::test]
    async fn names_are_checked_and_sources_do_not_take_each_others_toolboxes() {
        let boxes = ExternalToolboxes::default();
        let echo = || vec![tool("echo", Arc::new(|v| Box::pin(async move { Ok(v) })))];
        assert_eq!(
            boxes.put("math", Source::Mcp, echo()),
            Err(PutError::Builtin("math".into()))
        );
        assert!(matches!(
            boxes.put("a b", Source::Mcp, echo()),
            Err(PutError::BadName(_))
        ));
        boxes.put("vault", Source::Mcp, echo()).unwrap();
        assert_eq!(
            boxes.put("vault", Source::Bus, echo()),
            Err(PutError::Taken {
                name: "vault".into(),
                by: Source::Mcp
            })
        );
        boxes.put("vault", Source::Mcp, vec![]).unwrap();
        assert_eq!(boxes.get("vault").unwrap().tools.len(), 0);
        assert_eq!(boxes.list()[0].1, Source::Mcp);
        assert!(boxes.remove("vault"));
        assert!(!boxes.contains("vault"));
    }
}
