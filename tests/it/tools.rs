//! The built-in toolboxes through a `Toolset` (schema validation before every
//! call) and `loopd tools list` as a user runs it.

use crate::common::TempDir;
use loopd::tools::{toolbox, ToolConfig, ToolError, Toolset, TOOLBOXES};
use serde_json::{json, Value};
use std::process::Command;

fn structured_tools() -> Toolset {
    let config = ToolConfig {
        timezone: Some("UTC".into()),
        ..ToolConfig::default()
    };
    Toolset::named(&["dates", "math", "measure"], &config).unwrap()
}

fn invalid(result: Result<Value, ToolError>, tool: &str) -> String {
    match result {
        Err(ToolError::InvalidArguments { tool: t, reason }) if t == tool => reason,
        other => panic!("expected invalid arguments for {tool}, got {other:?}"),
    }
}

/// Every built-in tool, `files` rooted in a scratch folder.
fn every_tool(root: &TempDir) -> Toolset {
    let config = ToolConfig {
        file_roots: vec![root.0.clone()],
        ..ToolConfig::default()
    };
    Toolset::named(TOOLBOXES, &config).unwrap()
}

#[test]
fn date_math_and_measure_tools_are_called_through_the_toolset() {
    let tools = structured_tools();
    assert_eq!(
        tools.names(),
        [
            "current_time",
            "date_add",
            "date_diff",
            "weekday",
            "calculate",
            "convert_units",
            "statistics"
        ]
    );
    assert_eq!(
        tools
            .call("calculate", json!({"expression": "17*6+14"}))
            .unwrap(),
        json!({"result": 116.0})
    );
    assert_eq!(
        tools
            .call(
                "convert_units",
                json!({"value": 5, "from": "km", "to": "mi"})
            )
            .unwrap(),
        json!({"conversion": "5 km = 3.10686 mi", "result": 3.10686, "unit": "mi"})
    );
    assert_eq!(
        tools
            .call("date_add", json!({"start": "2024-12-31", "days": 1}))
            .unwrap(),
        json!({"spoken": "Wednesday 1 January 2025", "date": "2025-01-01", "weekday": "Wednesday"})
    );
    assert_eq!(
        tools.call("current_time", json!({})).unwrap()["timezone"],
        "UTC"
    );
}

#[test]
fn arguments_are_checked_against_the_schema_before_the_call() {
    let tools = structured_tools();
    let missing = invalid(tools.call("calculate", json!({})), "calculate");
    assert!(
        missing.contains("\"expression\" is a required property"),
        "{missing}"
    );
    let wrong_type = invalid(
        tools.call("calculate", json!({"expression": 17})),
        "calculate",
    );
    assert!(wrong_type.starts_with("/expression: "), "{wrong_type}");
    let unknown = invalid(
        tools.call("calculate", json!({"expression": "1", "precision": 2})),
        "calculate",
    );
    assert!(unknown.contains("precision"), "{unknown}");
    let text_number = invalid(
        tools.call(
            "convert_units",
            json!({"value": "5", "from": "km", "to": "mi"}),
        ),
        "convert_units",
    );
    assert!(text_number.starts_with("/value: "), "{text_number}");
    invalid(
        tools.call("statistics", json!({"numbers": []})),
        "statistics",
    );
    invalid(
        tools.call("date_add", json!({"start": "today", "days": 1.5})),
        "date_add",
    );
    assert_eq!(
        tools.call("weather", json!({})),
        Err(ToolError::Unknown {
            name: "weather".into(),
            available:
                "current_time, date_add, date_diff, weekday, calculate, convert_units, statistics"
                    .into()
        })
    );
}

#[test]
fn failures_inside_a_tool_are_tool_errors() {
    let tools = structured_tools();
    assert_eq!(
        tools.call("current_time", json!({"timezone": "Mars/Base"})),
        Err(ToolError::Failed(
            "unknown timezone `Mars/Base`: use an IANA name such as Europe/Paris, \
             America/New_York, Asia/Tokyo or UTC"
                .into()
        ))
    );
    assert!(matches!(
        tools.call("calculate", json!({"expression": "1/0"})),
        Err(ToolError::Failed(_))
    ));
}

#[test]
fn every_builtin_spec_describes_itself_and_its_arguments() {
    let root = TempDir::new("tools-specs");
    let tools = every_tool(&root);
    assert_eq!(tools.specs().len(), 14);
    for spec in tools.specs() {
        assert!(!spec.description.trim().is_empty(), "{}", spec.name);
        let arguments = &spec.argument_schema;
        assert_eq!(arguments["type"], "object", "{}", spec.name);
        assert_eq!(arguments["additionalProperties"], false, "{}", spec.name);
        let properties = arguments["properties"].as_object().unwrap();
        assert!(!properties.is_empty(), "{}", spec.name);
        for (name, property) in properties {
            let description = property["description"].as_str().unwrap_or("");
            assert!(!description.is_empty(), "{}.{name}", spec.name);
        }
        assert_eq!(spec.output_schema["type"], "object", "{}", spec.name);
        assert_eq!(spec.as_function()["function"]["name"], spec.name.as_str());
    }
}

#[test]
fn schemas_are_trimmed_for_small_models() {
    let tools = structured_tools();
    let spec = tools.specs()[0];
    assert_eq!(
        spec.argument_schema,
        json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {"timezone": {
                "type": "string",
                "description": "IANA timezone or city, e.g. \"Europe/Paris\", \"Tokyo\" or \"UTC\" (default: the local zone)."
            }}
        })
    );
    assert_eq!(
        spec.output_schema["properties"]["spoken"],
        json!({"type": "string", "description": "The time and date as people say them: \"4:48 in the morning, Thursday 26 November 2026\"."})
    );
}

#[test]
fn files_needs_a_root_and_reads_inside_it() {
    assert_eq!(
        Toolset::named(&["files"], &ToolConfig::default())
            .err()
            .map(|e| e.to_string()),
        Some(
            "the files toolbox needs at least one folder it may read (configure file roots)".into()
        )
    );
    let root = TempDir::new("tools-files");
    std::fs::write(root.join("todo.txt"), "water the plants\n").unwrap();
    let tools = every_tool(&root);
    assert_eq!(
        tools
            .call("read_file", json!({"path": "todo.txt"}))
            .unwrap()["content"],
        "water the plants\n"
    );
    invalid(tools.call("read_file", json!({})), "read_file");
    assert_eq!(
        toolbox("weather", &ToolConfig::default())
            .err()
            .map(|e| e.to_string()),
        Some(
            "unknown toolbox `weather` (available: clock, math, files, dates, measure, limits, timers, words)"
                .into()
        )
    );
}

#[test]
fn tools_list_json_is_the_ovos_tool_list_with_toolboxes() {
    let out = Command::new(env!("CARGO_BIN_EXE_loopd"))
        .args(["tools", "list", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let listed: Vec<(String, String)> = list
        .iter()
        .map(|t| {
            for field in ["argument_schema", "output_schema"] {
                assert_eq!(t[field]["type"], "object", "{t}");
            }
            assert!(!t["description"].as_str().unwrap().is_empty(), "{t}");
            assert_eq!(t["source"], "builtin", "{t}");
            (
                t["toolbox"].as_str().unwrap().to_string(),
                t["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let root = TempDir::new("tools-list");
    let config = ToolConfig {
        file_roots: vec![root.0.clone()],
        ..ToolConfig::default()
    };
    let expected: Vec<(String, String)> = TOOLBOXES
        .iter()
        .flat_map(|&name| {
            toolbox(name, &config)
                .unwrap()
                .tools
                .iter()
                .map(|t| (name.to_string(), t.spec().name.clone()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(listed, expected);
    assert_eq!(listed.len(), 14);
}

#[test]
fn tools_list_prints_each_toolbox_and_tool() {
    let out = Command::new(env!("CARGO_BIN_EXE_loopd"))
        .args(["tools", "list"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let headers: Vec<&str> = text.lines().filter(|l| !l.starts_with(' ')).collect();
    let expected: Vec<String> = TOOLBOXES.iter().map(|t| format!("{t} (builtin)")).collect();
    assert_eq!(headers, expected);
    assert!(
        text.contains("\n  calculate: Computes arithmetic, percentages"),
        "{text}"
    );
    assert!(
        text.contains("      expression (string, required): The expression"),
        "{text}"
    );
    assert!(
        text.contains("      timezone (string, optional): "),
        "{text}"
    );
}
