//! MCP servers as toolboxes, through the official Rust SDK (`rmcp`).
//!
//! loopd starts a stdio server, or reaches a streamable-HTTP one
//! ([`McpServer`]), lists its tools with their input schemas, and puts them in the [`ExternalToolboxes`] under the
//! server's name. A call sends `tools/call` with the validated arguments; the
//! result's structured content, or its text (parsed as JSON when it is
//! JSON), is what the model reads, and `isError` comes back as a failed
//! call. A server that exits (or an HTTP server that cannot be reached) is
//! started (reached) again with back-off; meanwhile its tools stay listed
//! and answer that the server is not running.

use super::external::{CallFn, ExternalTool, ExternalToolboxes, Source, CALL_TIMEOUT};
use super::{Tool, ToolError, ToolSpec};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{Peer, RoleClient, ServiceExt};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::process::Stdio;
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// How long a server may take to start and list its tools.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// First wait before starting a server again; doubled after each failure.
const FIRST_RETRY: Duration = Duration::from_millis(500);

/// Longest wait between starts.
const LAST_RETRY: Duration = Duration::from_secs(30);

/// An MCP server: one loopd starts and talks to over its stdin and stdout
/// (`command`), or one it reaches over streamable HTTP (`url`). A
/// `[[mcp]]` entry in the daemon config, or `ask --mcp NAME=COMMAND|URL`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServer {
    /// The toolbox name its tools are offered under.
    pub name: String,
    /// The program to run (empty for a server reached by `url`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub command: String,
    /// The server's streamable-HTTP endpoint (`http://HOST:PORT/mcp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Environment variables set for it, on top of loopd's.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Seconds one call may take (default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
}

/// The servers of several lists (the daemon config's, each persona's),
/// each once; the same name given two different servers is an error.
pub fn merged<'a>(
    lists: impl IntoIterator<Item = &'a [McpServer]>,
) -> Result<Vec<McpServer>, String> {
    let mut all: Vec<McpServer> = Vec::new();
    for server in lists.into_iter().flatten() {
        match all.iter().find(|s| s.name == server.name) {
            Some(same) if same == server => {}
            Some(_) => {
                return Err(format!(
                    "two different MCP servers are named `{}`",
                    server.name
                ))
            }
            None => all.push(server.clone()),
        }
    }
    Ok(all)
}

impl McpServer {
    /// Reads `NAME=COMMAND`, the command line split as a POSIX shell would,
    /// or `NAME=URL` for a streamable-HTTP server.
    pub fn from_flag(flag: &str) -> Result<McpServer, String> {
        let (name, command) = flag
            .split_once('=')
            .ok_or_else(|| format!("--mcp `{flag}`: expected NAME=COMMAND or NAME=URL"))?;
        let command = command.trim();
        if command.starts_with("http://") || command.starts_with("https://") {
            let server = McpServer {
                name: name.trim().to_string(),
                command: String::new(),
                url: Some(command.to_string()),
                args: Vec::new(),
                env: BTreeMap::new(),
                timeout: None,
            };
            server.check()?;
            return Ok(server);
        }
        let mut words = shlex::split(command)
            .ok_or_else(|| format!("--mcp `{flag}`: unbalanced quotes in the command"))?
            .into_iter();
        let program = words
            .next()
            .ok_or_else(|| format!("--mcp `{flag}`: the command is empty"))?;
        let server = McpServer {
            name: name.trim().to_string(),
            command: program,
            url: None,
            args: words.collect(),
            env: BTreeMap::new(),
            timeout: None,
        };
        server.check()?;
        Ok(server)
    }

    /// Checks the name, that it has a command or a URL (not both), and the
    /// timeout.
    pub fn check(&self) -> Result<(), String> {
        if !super::is_toolbox_name(&self.name) {
            return Err(format!(
                "MCP server name `{}` must be letters, digits, `-`, `_` or `.`",
                self.name
            ));
        }
        if super::TOOLBOXES.contains(&self.name.as_str()) {
            return Err(format!(
                "MCP server name `{}` is a built-in toolbox's",
                self.name
            ));
        }
        match (&self.url, self.command.trim().is_empty()) {
            (Some(_), false) => {
                return Err(format!(
                    "MCP server `{}`: give a `command` or a `url`, not both",
                    self.name
                ))
            }
            (None, true) => {
                return Err(format!(
                    "MCP server `{}`: give a `command` to run or a `url` to reach",
                    self.name
                ))
            }
            (Some(url), true) if !url.starts_with("http://") => {
                return Err(format!(
                    "MCP server `{}`: `{url}`: only http:// URLs are supported (loopd is \
                     built without TLS); reach HTTPS servers through a local proxy",
                    self.name
                ))
            }
            _ => {}
        }
        if let Some(t) = self.timeout {
            if !(t > 0.0 && t <= 3600.0) {
                return Err(format!(
                    "MCP server `{}`: timeout must be between 0 and 3600 seconds",
                    self.name
                ));
            }
        }
        Ok(())
    }

    fn call_timeout(&self) -> Duration {
        self.timeout
            .map(Duration::from_secs_f64)
            .unwrap_or(CALL_TIMEOUT)
    }
}

/// Starts `server` and keeps it running until `stop`, its tools in `boxes`
/// under its name. Returns once the first start has succeeded, or with
/// why it failed (it is tried again in the background either way).
pub async fn start(
    server: McpServer,
    boxes: ExternalToolboxes,
    stop: CancellationToken,
) -> Result<(), String> {
    let (ready, started) = oneshot::channel();
    tokio::spawn(supervise(server, boxes, stop, ready));
    started
        .await
        .unwrap_or_else(|_| Err("stopped before it started".into()))
}

/// The connection a server's tools call through, absent while it is down.
type Slot = Arc<RwLock<Option<Peer<RoleClient>>>>;

async fn supervise(
    server: McpServer,
    boxes: ExternalToolboxes,
    stop: CancellationToken,
    ready: oneshot::Sender<Result<(), String>>,
) {
    let slot: Slot = Arc::default();
    let mut ready = Some(ready);
    let mut delay = FIRST_RETRY;
    while !stop.is_cancelled() {
        let started = tokio::select! {
            started = launch(&server) => started,
            _ = stop.cancelled() => break,
        };
        match started {
            Ok((service, tools)) => {
                let tools = tools
                    .into_iter()
                    .map(|tool| offered(&server, tool, slot.clone()))
                    .collect();
                *slot.write().unwrap_or_else(|e| e.into_inner()) = Some(service.peer().clone());
                let put = boxes.put(&server.name, Source::Mcp, tools);
                if let Some(ready) = ready.take() {
                    let _ = ready.send(put.clone().map_err(|e| e.to_string()));
                }
                if let Err(e) = put {
                    tracing::warn!("MCP server `{}`: {e}", server.name);
                    return;
                }
                tracing::info!("MCP server `{}` is running", server.name);
                delay = FIRST_RETRY;
                let quit = tokio::select! {
                    quit = service.waiting() => quit,
                    _ = stop.cancelled() => break,
                };
                *slot.write().unwrap_or_else(|e| e.into_inner()) = None;
                tracing::warn!(
                    "MCP server `{}` stopped ({quit:?}); starting it again in {:?}",
                    server.name,
                    delay
                );
            }
            Err(e) => {
                tracing::warn!(
                    "MCP server `{}`: {e}; trying again in {:?}",
                    server.name,
                    delay
                );
                if let Some(ready) = ready.take() {
                    let _ = ready.send(Err(e));
                }
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(delay) => {}
            _ = stop.cancelled() => break,
        }
        delay = (delay * 2).min(LAST_RETRY);
    }
    *slot.write().unwrap_or_else(|e| e.into_inner()) = None;
    boxes.remove(&server.name);
}

/// Runs the server's command (or reaches its URL), completes the MCP
/// handshake and lists its tools.
async fn launch(
    server: &McpServer,
) -> Result<(RunningService<RoleClient, ()>, Vec<rmcp::model::Tool>), String> {
    let handshake = async {
        let service = match &server.url {
            Some(url) => ().serve(StreamableHttpClientTransport::from_uri(url.as_str())).await,
            None => ().serve(spawn(server)?).await,
        }
        .map_err(|e| format!("the MCP handshake failed: {e}"))?;
        let tools = service
            .peer()
            .list_all_tools()
            .await
            .map_err(|e| format!("listing its tools failed: {e}"))?;
        Ok((service, tools))
    };
    tokio::time::timeout(START_TIMEOUT, handshake)
        .await
        .map_err(|_| format!("it did not start within {START_TIMEOUT:?}"))?
}

/// The variables of loopd's environment a stdio server inherits: where
/// programs are, the user, the locale, the time zone and the usual
/// directories. The rest (`LOOPD_BRAIN_API_KEY` among them) stays with
/// loopd; a server gets more through its `env`.
pub const INHERITED: [&str; 13] = [
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "XDG_RUNTIME_DIR",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "SYSTEMROOT",
];

/// Whether a stdio server inherits the variable `name` ([`INHERITED`], and
/// the locale's `LC_*`).
fn inherited(name: &str) -> bool {
    INHERITED.contains(&name) || name.starts_with("LC_")
}

/// Runs a stdio server's command with [`INHERITED`] of loopd's environment
/// and its own `env`, its stderr going to the log.
fn spawn(server: &McpServer) -> Result<TokioChildProcess, String> {
    let mut command = tokio::process::Command::new(&server.command);
    command
        .args(&server.args)
        .env_clear()
        .envs(std::env::vars_os().filter(|(name, _)| name.to_str().is_some_and(inherited)))
        .envs(&server.env);
    let (transport, stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run `{}`: {e}", server.command))?;
    if let Some(stderr) = stderr {
        let name = server.name.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!("MCP server `{name}`: {line}");
            }
        });
    }
    Ok(transport)
}

/// One of the server's tools as loopd offers it.
fn offered(server: &McpServer, tool: rmcp::model::Tool, slot: Slot) -> Arc<dyn Tool> {
    let spec = ToolSpec {
        name: tool.name.to_string(),
        description: tool.description.as_deref().unwrap_or_default().to_string(),
        argument_schema: Value::Object((*tool.input_schema).clone()),
        output_schema: tool
            .output_schema
            .map(|schema| Value::Object((*schema).clone()))
            .unwrap_or_else(|| json!({})),
    };
    let server_name = server.name.clone();
    let tool_name = spec.name.clone();
    let call: CallFn = Arc::new(move |arguments| {
        let peer = slot.read().unwrap_or_else(|e| e.into_inner()).clone();
        let server_name = server_name.clone();
        let tool_name = tool_name.clone();
        Box::pin(async move {
            let peer = peer.ok_or_else(|| {
                ToolError::Failed(format!(
                    "the MCP server `{server_name}` is not running now; it is being restarted"
                ))
            })?;
            let arguments = match arguments {
                Value::Object(map) => map,
                _ => Map::new(),
            };
            let params = CallToolRequestParams::new(tool_name).with_arguments(arguments);
            let result = peer.call_tool(params).await.map_err(|e| {
                ToolError::Failed(match e {
                    rmcp::ServiceError::TransportClosed => format!(
                        "the MCP server `{server_name}` is not running now (it stopped); \
                         it is being restarted"
                    ),
                    e => format!("the MCP server `{server_name}` failed: {e}"),
                })
            })?;
            outcome(result)
        })
    });
    ExternalTool::shared(spec, server.call_timeout(), call)
}

/// What a `tools/call` result means to the loop: `isError` is a failure
/// (its text the reason); else the structured content, else the text
/// items, each parsed as JSON where it is JSON.
fn outcome(result: CallToolResult) -> Result<Value, ToolError> {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|item| item.as_text().map(|t| t.text.as_str()))
        .collect();
    if result.is_error == Some(true) {
        let reason = texts.join("\n");
        return Err(ToolError::Failed(if reason.trim().is_empty() {
            "the tool reported an error".into()
        } else {
            reason
        }));
    }
    if let Some(structured) = result.structured_content {
        return Ok(structured);
    }
    let parsed = |text: &str| serde_json::from_str(text).unwrap_or_else(|_| Value::from(text));
    Ok(match texts[..] {
        [] => Value::Null,
        [one] => parsed(one),
        _ => Value::Array(texts.iter().map(|t| parsed(t)).collect()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ContentBlock;

    #[test]
    fn flags_are_split_like_a_shell_and_checked() {
        let s = McpServer::from_flag("vault=python3 -m 'my server' --x=1").unwrap();
        assert_eq!(s.name, "vault");
        assert_eq!(s.command, "python3");
        assert_eq!(s.args, ["-m", "my server", "--x=1"]);
        let web = McpServer::from_flag("home=http://127.0.0.1:8123/mcp").unwrap();
        assert_eq!(web.url.as_deref(), Some("http://127.0.0.1:8123/mcp"));
        assert!(web.command.is_empty());
        for (flag, error) in [
            ("vault", "expected NAME=COMMAND or NAME=URL"),
            ("vault=https://example.org/mcp", "only http:// URLs"),
            ("vault=", "the command is empty"),
            ("vault=python3 'open", "unbalanced quotes"),
            ("my vault=x", "must be letters"),
            ("math=x", "built-in toolbox"),
        ] {
            let message = McpServer::from_flag(flag).unwrap_err();
            assert!(message.contains(error), "{flag}: {message}");
        }
    }

    #[test]
    fn results_become_json_and_errors_become_failures() {
        let text = |t: &str| ContentBlock::text(t);
        assert_eq!(
            outcome(CallToolResult::success(vec![text("{\"a\": 1}")])),
            Ok(json!({"a": 1}))
        );
        assert_eq!(
            outcome(CallToolResult::success(vec![text("plain"), text("2")])),
            Ok(json!(["plain", 2]))
        );
        assert_eq!(
            outcome(CallToolResult::error(vec![text("no such city")])),
            Err(ToolError::Failed("no such city".into()))
        );
    }
}
