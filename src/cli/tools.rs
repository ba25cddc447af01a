//! `loopd tools`: the tools a request can use, built in and from MCP servers.

use crate::tools::mcp::{self, McpServer};
use crate::tools::{
    toolbox, type_name, ExternalToolboxes, Source, ToolConfig, ToolSpec, TOOLBOXES,
};
use clap::{Args, Subcommand};
use serde_json::{json, Value};

/// Arguments of `loopd tools`.
#[derive(Debug, Args)]
pub struct ToolsArgs {
    /// What to do with tools.
    #[command(subcommand)]
    pub command: ToolsCommand,
}

/// `loopd tools` subcommands.
#[derive(Debug, Subcommand)]
pub enum ToolsCommand {
    /// Every tool by toolbox, with its source, description and arguments.
    List {
        /// Print the OVOS `tool_json_list` array (with `toolbox` and
        /// `source` fields) instead.
        #[arg(long)]
        json: bool,
        /// Also start this MCP server, `NAME=COMMAND` (repeatable), and
        /// list its tools.
        #[arg(long = "mcp", value_name = "NAME=COMMAND")]
        mcp: Vec<String>,
    },
}

/// Runs `loopd tools`.
pub fn run(args: ToolsArgs) -> Result<(), String> {
    match args.command {
        ToolsCommand::List { json, mcp } => list(json, &mcp),
    }
}

/// The specs of every built-in toolbox, in [`TOOLBOXES`] order.
fn builtin_specs() -> Result<Vec<(String, Source, Vec<ToolSpec>)>, String> {
    let config = listing_config();
    TOOLBOXES
        .iter()
        .map(|&name| {
            let tools = toolbox(name, &config).map_err(|e| e.to_string())?.tools;
            let specs = tools.iter().map(|t| t.spec().clone()).collect();
            Ok((name.to_string(), Source::Builtin, specs))
        })
        .collect()
}

/// The specs of the MCP servers' toolboxes, each server started and stopped.
fn mcp_specs(flags: &[String]) -> Result<Vec<(String, Source, Vec<ToolSpec>)>, String> {
    if flags.is_empty() {
        return Ok(Vec::new());
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(async {
        let external = ExternalToolboxes::default();
        let stop = tokio_util::sync::CancellationToken::new();
        let _stop = stop.clone().drop_guard();
        for flag in flags {
            let server = McpServer::from_flag(flag)?;
            let name = server.name.clone();
            mcp::start(server, external.clone(), stop.clone())
                .await
                .map_err(|e| format!("MCP server `{name}`: {e}"))?;
        }
        Ok(external.list())
    })
}

/// A configuration that lets every toolbox be built only to be described:
/// `files` needs a root folder, so it gets the temporary folder, which is
/// never read.
fn listing_config() -> ToolConfig {
    ToolConfig {
        file_roots: vec![std::env::temp_dir()],
        ..ToolConfig::default()
    }
}

fn list(as_json: bool, mcp: &[String]) -> Result<(), String> {
    let mut boxes = builtin_specs()?;
    boxes.extend(mcp_specs(mcp)?);
    if as_json {
        let list: Vec<Value> = boxes
            .iter()
            .flat_map(|(name, source, specs)| {
                specs.iter().map(move |spec| tool_json(name, *source, spec))
            })
            .collect();
        println!("{}", Value::Array(list));
        return Ok(());
    }
    for (name, source, specs) in &boxes {
        println!("{name} ({source})");
        for spec in specs {
            println!("  {}: {}", spec.name, spec.description);
            for line in argument_lines(&spec.argument_schema) {
                println!("      {line}");
            }
        }
    }
    Ok(())
}

/// One entry of the OVOS `tool_json_list`, with the toolbox it belongs to
/// and where that comes from.
fn tool_json(toolbox: &str, source: Source, spec: &ToolSpec) -> Value {
    json!({
        "name": spec.name,
        "description": spec.description,
        "argument_schema": spec.argument_schema,
        "output_schema": spec.output_schema,
        "toolbox": toolbox,
        "source": source,
    })
}

/// `name (type, required): description` for each argument.
fn argument_lines(schema: &Value) -> Vec<String> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema["properties"].as_object() else {
        return vec!["(no arguments)".into()];
    };
    properties
        .iter()
        .map(|(name, property)| {
            let need = if required.contains(&name.as_str()) {
                "required"
            } else {
                "optional"
            };
            let description = property["description"].as_str().unwrap_or("");
            format!("{name} ({}, {need}): {description}", type_name(property))
        })
        .collect()
}
