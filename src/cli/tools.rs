//! `loopd tools`: the built-in tools a request can use.

use crate::tools::{toolbox, type_name, ToolConfig, ToolSpec, TOOLBOXES};
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
    /// Every built-in tool by toolbox, with its description and arguments.
    List {
        /// Print the OVOS `tool_json_list` array (with a `toolbox` field) instead.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `loopd tools`.
pub fn run(args: ToolsArgs) -> Result<(), String> {
    match args.command {
        ToolsCommand::List { json } => list(json),
    }
}

/// The specs of every built-in toolbox, in [`TOOLBOXES`] order.
fn builtin_specs() -> Result<Vec<(&'static str, Vec<ToolSpec>)>, String> {
    let config = listing_config();
    TOOLBOXES
        .iter()
        .map(|&name| {
            let tools = toolbox(name, &config).map_err(|e| e.to_string())?.tools;
            Ok((name, tools.iter().map(|t| t.spec().clone()).collect()))
        })
        .collect()
}

/// A configuration that lets every toolbox be built only to be described:
/// `files` needs a root folder, so it gets the temporary folder, which is
/// never read.
fn listing_config() -> ToolConfig {
    ToolConfig {
        file_roots: vec![std::env::temp_dir()],
        timezone: None,
    }
}

fn list(as_json: bool) -> Result<(), String> {
    let boxes = builtin_specs()?;
    if as_json {
        let list: Vec<Value> = boxes
            .iter()
            .flat_map(|(name, specs)| specs.iter().map(move |spec| tool_json(name, spec)))
            .collect();
        println!("{}", Value::Array(list));
        return Ok(());
    }
    for (name, specs) in &boxes {
        println!("{name}");
        for spec in specs {
            println!("  {}: {}", spec.name, spec.description);
            for line in argument_lines(&spec.argument_schema) {
                println!("      {line}");
            }
        }
    }
    Ok(())
}

/// One entry of the OVOS `tool_json_list`, with the toolbox it belongs to.
fn tool_json(toolbox: &str, spec: &ToolSpec) -> Value {
    json!({
        "name": spec.name,
        "description": spec.description,
        "argument_schema": spec.argument_schema,
        "output_schema": spec.output_schema,
        "toolbox": toolbox,
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
