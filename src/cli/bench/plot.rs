//! `--plot FILE.svg`: a horizontal stacked bar per engine (two in compare
//! mode, cached and uncached), the mean time per run split into prefill,
//! decode, tool and other time.

use super::report::{mode_name, summary};
use super::runner::{Plan, Results};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// One bar: its label and its parts in seconds, in [`PARTS`] order.
struct Bar {
    label: String,
    parts: [f64; 4],
}

/// The parts of a bar and their colours.
const PARTS: [(&str, RGBColor); 4] = [
    ("prefill", RGBColor(66, 133, 244)),
    ("decode", RGBColor(244, 160, 0)),
    ("tool", RGBColor(15, 157, 88)),
    ("other", RGBColor(160, 160, 160)),
];

/// Writes the chart to `path`.
pub fn write(path: &Path, results: &Results, plan: &Plan) -> Result<(), String> {
    let mut bars = Vec::new();
    for result in &results.loops {
        for &cached in &plan.modes {
            let s = summary(result, cached);
            let label = if plan.modes.len() > 1 {
                format!("{} ({})", result.id, mode_name(cached))
            } else {
                result.id.clone()
            };
            let seconds = |ms: f64| s.mean(ms) / 1000.0;
            bars.push(Bar {
                label,
                parts: [
                    seconds(s.prefill_ms),
                    seconds(s.decode_ms),
                    seconds(s.tool_ms),
                    seconds(s.other_ms()),
                ],
            });
        }
    }
    let title = format!(
        "loopd bench: {}, {}, {} threads",
        results.model_file, results.info.device, results.info.threads
    );
    draw(path, &title, &bars).map_err(|e| format!("cannot draw {}: {e}", path.display()))
}

fn draw(path: &Path, title: &str, bars: &[Bar]) -> Result<(), Box<dyn std::error::Error>> {
    let n = bars.len().max(1);
    let longest = bars
        .iter()
        .map(|b| b.label.chars().count())
        .max()
        .unwrap_or(4);
    let height = 140 + 44 * n as u32;
    let root = SVGBackend::new(path, (900, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let widest = bars
        .iter()
        .map(|b| b.parts.iter().sum::<f64>())
        .fold(0.0, f64::max);
    let x_max = if widest > 0.0 { widest * 1.35 } else { 1.0 };
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(40 + 8 * longest as u32)
        .build_cartesian_2d(0.0..x_max, 0.0..n as f64)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_label_formatter(&|x| format!("{x:.1}"))
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .x_desc("mean seconds per run")
        .y_desc("engine")
        .draw()?;
    let label =
        TextStyle::from(("sans-serif", 14).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    for (i, bar) in bars.iter().enumerate() {
        let row = (n - 1 - i) as f64;
        let (x, y) = chart.backend_coord(&(0.0, row + 0.5));
        root.draw(&Text::new(bar.label.clone(), (x - 8, y), label.clone()))?;
    }
    for (k, (name, color)) in PARTS.iter().enumerate() {
        let shown = bars
            .iter()
            .enumerate()
            .filter(|(_, bar)| bar.parts[k] > 0.0);
        let rects = shown.map(|(i, bar)| {
            let row = (n - 1 - i) as f64;
            let start: f64 = bar.parts[..k].iter().sum();
            Rectangle::new(
                [(start, row + 0.2), (start + bar.parts[k], row + 0.8)],
                color.filled(),
            )
        });
        chart
            .draw_series(rects)?
            .label(*name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bars(n: usize) -> Vec<Bar> {
        (0..n)
            .map(|i| Bar {
                label: format!("loop-{i}"),
                parts: [1.0 + i as f64, 2.0, 0.5, 0.1],
            })
            .collect()
    }

    #[test]
    fn one_row_per_bar_with_labels_and_a_legend() {
        let dir = std::env::temp_dir().join(format!("loopd-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for n in [1, 4] {
            let path = dir.join(format!("{n}.svg"));
            draw(&path, "title", &bars(n)).unwrap();
            let svg = std::fs::read_to_string(&path).unwrap();
            assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
            for i in 0..n {
                assert!(svg.contains(&format!("loop-{i}")), "{svg}");
            }
            for (part, _) in PARTS {
                assert!(svg.contains(part));
            }
            assert!(svg.contains("mean seconds per run"));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
