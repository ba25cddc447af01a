//! What naming toolboxes costs a request: building its `Toolset` (every
//! tool's argument schema compiled) from the built-in toolboxes and one
//! from outside with twenty tools, as an OVOS skill or an MCP server
//! publishes them. Discovery itself runs off the request path (when a
//! toolbox announces itself or a server starts), so this is all that
//! toolboxes from outside add to a warm request before its first tool call.
//!
//! `cargo bench -p loopd-benches --bench toolset`

use criterion::{criterion_group, criterion_main, Criterion};
use loopd::tools::external::{CallFn, ExternalTool};
use loopd::tools::{ExternalToolboxes, Source, ToolConfig, ToolSpec, Toolset};
use serde_json::json;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

fn external_toolbox(boxes: &ExternalToolboxes) {
    let call: CallFn = Arc::new(|v| Box::pin(async move { Ok(v) }));
    let tools = (0..20)
        .map(|i| {
            let spec = ToolSpec::from_json(&json!({
                "name": format!("tool_{i}"),
                "description": "Looks something up in the household's records.",
                "argument_schema": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "What to look for."},
                        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                        "room": {"type": "string", "enum": ["kitchen", "attic", "garage"]}
                    },
                    "required": ["query"]
                },
                "output_schema": {"type": "object"}
            }))
            .unwrap();
            ExternalTool::shared(spec, Duration::from_secs(20), call.clone())
        })
        .collect();
    boxes.put("records", Source::Bus, tools).unwrap();
}

fn toolsets(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let _entered = runtime.enter();
    let config = ToolConfig::default();
    external_toolbox(&config.external);
    c.bench_function("toolset/clock+math", |b| {
        b.iter(|| Toolset::named(black_box(&["clock", "math"]), &config).unwrap())
    });
    c.bench_function("toolset/clock+math+20_external", |b| {
        b.iter(|| Toolset::named(black_box(&["clock", "math", "records"]), &config).unwrap())
    });
}

criterion_group!(benches, toolsets);
criterion_main!(benches);
