//! The `math` toolbox: arithmetic expressions, unit conversion and summary
//! statistics, so a small model never has to compute in its head. The
//! calculator reads what small models write ([`spoken`]): operator words,
//! list functions, and conversions handed on to `convert_units`.

pub mod spoken;

use super::{typed_tool, Tool, ToolError};
use exmex::prelude::*;
use exmex::{FloatOpsFactory, MakeOperators, MatchLiteral, Operator};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The longest expression `calculate` accepts, in characters.
pub const MAX_EXPRESSION_CHARS: usize = 400;

/// The most numbers `statistics` accepts.
pub const MAX_NUMBERS: usize = 10_000;

/// The name of the `math` toolbox's calculator.
pub const CALCULATE: &str = "calculate";

/// The tools of the `math` toolbox: `calculate`, which reads arithmetic,
/// percentages, lists and conversions as written or asked.
pub fn tools() -> Vec<Arc<dyn Tool>> {
    vec![typed_tool(
        CALCULATE,
        "Computes arithmetic, percentages, averages and unit conversions, written as an \
         expression (17*23, 15% of 80, sqrt(169), mean(4, 8, 15), 3 m in ft) or asked in \
         words (what is 17 times 23, how many cups are in a gallon).",
        calculate,
    )]
}

/// The tools of the `measure` toolbox, for structured arguments:
/// `convert_units` and `statistics`.
pub fn measure_tools() -> Vec<Arc<dyn Tool>> {
    vec![
        typed_tool(
            "convert_units",
            "Converts an amount between units of length, mass, temperature, volume (kitchen \
             units too: cup, tbsp, tsp, fl oz, pint, quart, gallon), area, time, speed, energy \
             or data size, e.g. 5 km to mi, 100 C to F, 1 gallon to cups.",
            convert_units,
        ),
        typed_tool(
            "statistics",
            "Summarises a list of numbers: count, sum, mean (the average), median, min, max, \
             range, standard deviation and mode.",
            statistics,
        ),
    ]
}

/// Arguments of `calculate`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CalculateArgs {
    /// The expression, e.g. "17*6+14" or "sqrt(16)/2", or the question in words.
    #[schemars(extend("x-question" = true))]
    pub expression: String,
}

/// Result of `calculate`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CalculateOutput {
    /// The value of the expression.
    pub result: f64,
    /// The conversion done, when the expression was one (`3 m in ft`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversion: Option<String>,
    /// The answer to say, for a question in words about a percentage or a
    /// conversion, or one that is arithmetic and nothing else (`What is 3
    /// percent of 900?` → `It's 27.`, `How many feet in a mile?` → `1 mile
    /// is 5280 feet.`, `What is 17 times 23?` → `17 times 23 is 391.`):
    /// said as it is, with no model call to word it (a small model words a
    /// percentage wrongly as often as not: "27% of 900 is 27"; a voice
    /// answers the arithmetic at once).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
}

/// Evaluates an arithmetic expression. An equation is read for its
/// computation: `80000 + 50000 = 130000` is `80000 + 50000`, and
/// `profit = 5*3` is `5*3`, since small models write their steps that way.
/// A conversion (`3 m in ft`) is done by [`convert_units`].
pub fn calculate(args: CalculateArgs) -> Result<CalculateOutput, ToolError> {
    let expression = computation(&args.expression);
    let in_words = spoken::in_words(expression);
    if let Some(asked) = spoken::conversion(expression) {
        let converted = convert_units(ConvertArgs {
            value: asked.value,
            from: asked.from.clone(),
            to: asked.to.clone(),
        });
        if let Ok(converted) = converted {
            return Ok(CalculateOutput {
                result: converted.result,
                conversion: Some(converted.conversion),
                answer: in_words.then(|| spoken::converted(&asked, converted.result)),
            });
        }
    }
    let mut value = round_significant(evaluate(expression)?, 12);
    if in_words {
        value = round_significant(spoken::in_minor_units(expression, value), 12);
    }
    Ok(CalculateOutput {
        result: value,
        conversion: None,
        answer: match in_words && spoken::about_percent(expression) {
            true => Some(spoken::result(expression, value)),
            false => in_words
                .then(|| {
                    spoken::list_answer(expression, value)
                        .or_else(|| spoken::bare_arithmetic(expression, value))
                })
                .flatten(),
        },
    })
}

/// The value of an arithmetic expression in the calculator's syntax
/// (`17*6+14`, `7.5% of 80`, `sqrt(16)/2`, `3 × 4`); an error says what is
/// wrong with it.
pub fn evaluate(expression: &str) -> Result<f64, ToolError> {
    let text = normalize_expression(expression)?;
    let parsed = FlatEx::<f64, CalculatorOps, DecimalLiteral>::parse(&text)
        .map_err(|e| expression_error(expression, e.msg()))?;
    if let Some(name) = parsed.var_names().first() {
        return Err(expression_error(
            expression,
            &format!("unknown name `{name}`"),
        ));
    }
    let value = parsed
        .eval(&[])
        .map_err(|e| expression_error(expression, e.msg()))?;
    if !value.is_finite() {
        return Err(ToolError::Failed(format!(
            "`{expression}` has no finite value (division by zero, overflow, or outside a function's domain)"
        )));
    }
    Ok(value)
}

/// The side of an equation that holds the computation: the right side
/// when the left is empty or a name, otherwise the left.
fn computation(expression: &str) -> &str {
    let mut sides = expression.split('=');
    let (Some(left), Some(right), None) = (sides.next(), sides.next(), sides.next()) else {
        return expression;
    };
    if left.ends_with(['<', '>', '!']) {
        return expression;
    }
    let name = left.trim();
    if name
        .chars()
        .all(|c| c.is_alphabetic() || c == '_' || c == ' ')
    {
        right
    } else {
        left
    }
}

fn normalize_expression(expression: &str) -> Result<String, ToolError> {
    let text = expression.trim();
    if text.is_empty() {
        return Err(ToolError::Failed("the expression is empty".into()));
    }
    if text.chars().count() > MAX_EXPRESSION_CHARS {
        return Err(ToolError::Failed(format!(
            "the expression is longer than {MAX_EXPRESSION_CHARS} characters"
        )));
    }
    let inner = |argument: &str| evaluate(argument).map_err(|e| e.to_string());
    let text = spoken::as_arithmetic(text, inner).map_err(|e| expression_error(expression, &e))?;
    let text = match text.contains(char::is_alphabetic) {
        true => spoken::lone_computation(&text)
            .map(str::to_string)
            .or_else(|| spoken::as_arithmetic(&spoken::lone_list(&text)?, inner).ok())
            .unwrap_or(text),
        false => text,
    };
    Ok(percentages(&text)
        .replace("**", "^")
        .replace(['×', '·'], "*")
        .replace('÷', "/")
        .replace('−', "-"))
}

/// `7.5%` is `(7.5/100)`, and `7.5% of 80` is `(7.5/100)*80`.
fn percentages(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        let before = rest[..at].trim_end();
        let head = before.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        let number = &before[head.len()..];
        out.push_str(head);
        let after = &rest[at + 1..];
        if number.is_empty() {
            out.push('%');
            rest = after;
            continue;
        }
        out.push_str(&format!("({number}/100)"));
        let ahead = after.trim_start();
        rest = match ahead.get(..2) {
            Some(word) if word.eq_ignore_ascii_case("of") => {
                out.push('*');
                &ahead[2..]
            }
            _ => after,
        };
    }
    out.push_str(rest);
    out
}

fn expression_error(expression: &str, detail: &str) -> ToolError {
    let words = expression
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.len() > 2 && !FUNCTIONS.contains(&w.to_ascii_lowercase().as_str()))
        .count();
    if words >= 2 {
        let numbers: Vec<&str> = expression
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .map(|n| n.trim_matches('.'))
            .filter(|n| !n.is_empty())
            .collect();
        return ToolError::Failed(format!(
            "cannot read `{expression}` as arithmetic: write it as an expression of its \
             numbers ({}) with + - * / ^ and parentheses",
            numbers.join(", ")
        ));
    }
    let missing_operator = [
        "one more node than op",
        "on the right of a closing parenthesis",
    ]
    .iter()
    .any(|symptom| detail.contains(symptom));
    let detail = if missing_operator {
        "an operator is missing (write 2*pi, not 2 pi or 2(3))"
    } else {
        plain_detail(detail)
    };
    ToolError::Failed(format!("cannot compute `{expression}`: {detail}. {SYNTAX}"))
}

/// What the calculator's error messages end with: what it understands.
const SYNTAX: &str =
    "Use numbers, + - * / ^, parentheses, sqrt, sin, cos, tan, ln, log, abs, round, pi, e";

/// A parser's error as the model should read it: without the syntax hint
/// of an inner argument's error (said once, at the end) or the parser's
/// own data structures ("…, Operator { repr: … }").
fn plain_detail(detail: &str) -> &str {
    let detail = detail.split(SYNTAX).next().unwrap_or(detail);
    let detail = detail.split("Operator {").next().unwrap_or(detail);
    match detail.trim_end_matches([' ', ',', '.']) {
        "" => "it cannot be read",
        detail => detail,
    }
}

/// The calculator's function names, which are not words of a question.
const FUNCTIONS: [&str; 18] = [
    "sqrt",
    "sin",
    "cos",
    "tan",
    "log",
    "abs",
    "round",
    "mean",
    "avg",
    "average",
    "sum",
    "max",
    "min",
    "median",
    "range",
    "count",
    "total",
    "factorial",
];

/// exmex's float operators with calculator conventions: `log` is base 10,
/// and `pi` and `tau` are spelled in lower case too.
#[derive(Clone, Debug)]
struct CalculatorOps;

impl MakeOperators<f64> for CalculatorOps {
    fn make<'a>() -> Vec<Operator<'a, f64>> {
        let mut ops: Vec<Operator<'a, f64>> = FloatOpsFactory::<f64>::make()
            .into_iter()
            .filter(|op| op.repr() != "log")
            .collect();
        ops.push(Operator::make_unary("log", |a| a.log10()));
        ops.push(Operator::make_unary("factorial", factorial));
        ops.push(Operator::make_constant("pi", std::f64::consts::PI));
        ops.push(Operator::make_constant("tau", std::f64::consts::TAU));
        ops
    }
}

/// `n!` for a whole `n` from 0 to 170 (the largest whose factorial is a
/// finite f64); NaN otherwise, which the calculator reports.
fn factorial(n: f64) -> f64 {
    if n.fract() != 0.0 || !(0.0..=170.0).contains(&n) {
        return f64::NAN;
    }
    (1..=n as u32).map(f64::from).product()
}

/// Number literals: `12`, `0.5`, `.5`, `1.5e-3`. An `e` not followed by
/// digits is the constant e.
#[derive(Clone, Debug)]
struct DecimalLiteral;

impl MatchLiteral for DecimalLiteral {
    fn is_literal(text: &str) -> Option<&str> {
        let bytes = text.as_bytes();
        let digits_from = |start: usize| {
            start
                + bytes[start..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count()
        };
        let mut end = digits_from(0);
        if bytes.get(end) == Some(&b'.') {
            end = digits_from(end + 1);
        }
        if end == 0 || text[..end] == *"." {
            return None;
        }
        if matches!(bytes.get(end), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(bytes.get(end + 1), Some(b'+' | b'-')));
            let exponent_end = digits_from(end + 1 + sign);
            if exponent_end > end + 1 + sign {
                end = exponent_end;
            }
        }
        Some(&text[..end])
    }
}

/// Rounds to `digits` significant digits, so binary noise such as
/// 0.30000000000000004 does not reach the model.
pub fn round_significant(value: f64, digits: usize) -> f64 {
    if !value.is_finite() || value == 0.0 {
        return value;
    }
    format!("{:.*e}", digits.saturating_sub(1), value)
        .parse()
        .unwrap_or(value)
}

/// Arguments of `convert_units`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConvertArgs {
    /// The amount to convert.
    pub value: f64,
    /// The unit the amount is in now, as the question names it (a unit name or symbol).
    pub from: String,
    /// The unit the amount is wanted in (a unit name or symbol).
    pub to: String,
}

/// Result of `convert_units`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ConvertOutput {
    /// The conversion done, in words: "5 km = 3.10686 mi".
    pub conversion: String,
    /// The converted amount (6 significant digits).
    pub result: f64,
    /// Its unit's symbol.
    pub unit: String,
}

/// One unit: `base = (value + offset) * scale` in its dimension's base unit.
struct Unit {
    symbol: &'static str,
    names: &'static [&'static str],
    scale: f64,
    offset: f64,
}

/// A physical dimension and its units.
struct Dimension {
    name: &'static str,
    units: &'static [Unit],
}

const fn unit(symbol: &'static str, names: &'static [&'static str], scale: f64) -> Unit {
    Unit {
        symbol,
        names,
        scale,
        offset: 0.0,
    }
}

const DIMENSIONS: &[Dimension] = &[
    Dimension {
        name: "length",
        units: &[
            unit("m", &["meter", "metre"], 1.0),
            unit("km", &["kilometer", "kilometre"], 1000.0),
            unit("cm", &["centimeter", "centimetre"], 0.01),
            unit("mm", &["millimeter", "millimetre"], 0.001),
            unit("µm", &["um", "micrometer", "micrometre", "micron"], 1e-6),
            unit("nm", &["nanometer", "nanometre"], 1e-9),
            unit("mi", &["mile"], 1609.344),
            unit("yd", &["yard"], 0.9144),
            unit("ft", &["foot", "feet"], 0.3048),
            unit("in", &["inch"], 0.0254),
            unit("nmi", &["nautical mile"], 1852.0),
            unit("ftm", &["fathom"], 1.8288),
            unit("fur", &["furlong"], 201.168),
            unit("ly", &["light year", "lightyear"], 9_460_730_472_580_800.0),
        ],
    },
    Dimension {
        name: "mass",
        units: &[
            unit("kg", &["kilogram", "kilo"], 1.0),
            unit("g", &["gram", "gramme"], 0.001),
            unit("mg", &["milligram"], 1e-6),
            unit("µg", &["ug", "mcg", "microgram"], 1e-9),
            unit("t", &["tonne", "metric ton"], 1000.0),
            unit("lb", &["lbs", "pound"], 0.453_592_37),
            unit("oz", &["ounce"], 0.028_349_523_125),
            unit("st", &["stone"], 6.350_293_18),
            unit("stick", &["stick of butter"], 0.113_398),
            unit("ton", &["short ton", "us ton"], 907.184_74),
        ],
    },
    Dimension {
        name: "temperature",
        units: &[
            Unit {
                symbol: "K",
                names: &["kelvin"],
                scale: 1.0,
                offset: 0.0,
            },
            Unit {
                symbol: "C",
                names: &["celsius", "centigrade", "degC"],
                scale: 1.0,
                offset: 273.15,
            },
            Unit {
                symbol: "F",
                names: &["fahrenheit", "degF"],
                scale: 5.0 / 9.0,
                offset: 459.67,
            },
        ],
    },
    Dimension {
        name: "volume",
        units: &[
            unit("L", &["l", "liter", "litre"], 1.0),
            unit("mL", &["milliliter", "millilitre"], 0.001),
            unit("cL", &["centiliter", "centilitre"], 0.01),
            unit("dL", &["deciliter", "decilitre"], 0.1),
            unit("m3", &["m³", "cubic meter", "cubic metre"], 1000.0),
            unit(
                "cm3",
                &["cm³", "cc", "cubic centimeter", "cubic centimetre"],
                0.001,
            ),
            unit("gal", &["gallon", "us gallon"], 3.785_411_784),
            unit("imp gal", &["imperial gallon", "uk gallon"], 4.546_09),
            unit("qt", &["quart"], 0.946_352_946),
            unit("pt", &["pint"], 0.473_176_473),
            unit(
                "imp pt",
                &["imperial pint", "uk pint", "british pint"],
                0.568_261_25,
            ),
            unit("imp qt", &["imperial quart", "uk quart"], 1.136_522_5),
            unit(
                "imp fl oz",
                &["imperial fluid ounce", "uk fluid ounce"],
                0.028_413_062_5,
            ),
            unit("cup", &[], 0.236_588_236_5),
            unit("fl oz", &["floz", "fluid ounce"], 0.029_573_529_562_5),
            unit("tbsp", &["tablespoon"], 0.014_786_764_781_25),
            unit("tsp", &["teaspoon"], 0.004_928_921_593_75),
            unit("ft3", &["ft³", "cubic foot", "cubic feet"], 28.316_846_592),
            unit("in3", &["in³", "cubic inch"], 0.016_387_064),
        ],
    },
    Dimension {
        name: "time",
        units: &[
            unit("s", &["sec", "second"], 1.0),
            unit("ms", &["millisecond"], 0.001),
            unit("µs", &["us", "microsecond"], 1e-6),
            unit("ns", &["nanosecond"], 1e-9),
            unit("min", &["minute"], 60.0),
            unit("h", &["hr", "hour"], 3600.0),
            unit("d", &["day"], 86_400.0),
            unit("wk", &["week"], 604_800.0),
            unit("mo", &["month"], 2_628_000.0),
            unit("yr", &["year"], 31_536_000.0),
            unit("decade", &[], 315_360_000.0),
            unit("century", &["centuries"], 3_153_600_000.0),
        ],
    },
    Dimension {
        name: "speed",
        units: &[
            unit(
                "m/s",
                &["mps", "meters per second", "metres per second"],
                1.0,
            ),
            unit(
                "km/h",
                &[
                    "kph",
                    "kmh",
                    "km per hour",
                    "km an hour",
                    "kilometers per hour",
                    "kilometres per hour",
                ],
                1.0 / 3.6,
            ),
            unit(
                "mph",
                &["mi/h", "miles per hour", "miles an hour"],
                0.447_04,
            ),
            unit("kn", &["kt", "knot"], 1852.0 / 3600.0),
            unit("ft/s", &["fps", "feet per second"], 0.3048),
        ],
    },
    Dimension {
        name: "area",
        units: &[
            unit("m2", &["m²", "sq m", "square meter", "square metre"], 1.0),
            unit(
                "km2",
                &["km²", "sq km", "square kilometer", "square kilometre"],
                1e6,
            ),
            unit(
                "cm2",
                &["cm²", "sq cm", "square centimeter", "square centimetre"],
                1e-4,
            ),
            unit(
                "ft2",
                &["ft²", "sq ft", "square foot", "square feet"],
                0.092_903_04,
            ),
            unit("in2", &["in²", "sq in", "square inch"], 0.000_645_16),
            unit("yd2", &["yd²", "sq yd", "square yard"], 0.836_127_36),
            unit("mi2", &["mi²", "sq mi", "square mile"], 2_589_988.110_336),
            unit("acre", &["ac"], 4_046.856_422_4),
            unit("ha", &["hectare"], 10_000.0),
        ],
    },
    Dimension {
        name: "energy",
        units: &[
            unit("J", &["joule"], 1.0),
            unit("kJ", &["kilojoule"], 1000.0),
            unit("cal", &["calorie"], 4.184),
            unit("kcal", &["kilocalorie", "Cal", "food calorie"], 4184.0),
            unit("Wh", &["watt hour", "watt-hour"], 3600.0),
            unit("kWh", &["kilowatt hour", "kilowatt-hour"], 3_600_000.0),
        ],
    },
    Dimension {
        name: "pressure",
        units: &[
            unit("Pa", &["pascal"], 1.0),
            unit("hPa", &["hectopascal"], 100.0),
            unit("kPa", &["kilopascal"], 1000.0),
            unit("MPa", &["megapascal"], 1e6),
            unit("bar", &[], 100_000.0),
            unit("mbar", &["millibar"], 100.0),
            unit(
                "psi",
                &["pound per square inch", "pounds per square inch"],
                6_894.757_293_168,
            ),
            unit("atm", &["atmosphere"], 101_325.0),
            unit(
                "mmHg",
                &[
                    "millimeter of mercury",
                    "millimetre of mercury",
                    "millimeters of mercury",
                    "millimetres of mercury",
                ],
                133.322_387_415,
            ),
            unit(
                "inHg",
                &["inch of mercury", "inches of mercury"],
                3_386.388_666,
            ),
        ],
    },
    Dimension {
        name: "data size",
        units: &[
            unit("B", &["byte"], 1.0),
            unit("kB", &["kilobyte"], 1e3),
            unit("MB", &["megabyte"], 1e6),
            unit("GB", &["gigabyte"], 1e9),
            unit("TB", &["terabyte"], 1e12),
            unit("PB", &["petabyte"], 1e15),
            unit("KiB", &["kibibyte"], 1024.0),
            unit("MiB", &["mebibyte"], 1_048_576.0),
            unit("GiB", &["gibibyte"], 1_073_741_824.0),
            unit("TiB", &["tebibyte"], 1_099_511_627_776.0),
            unit("bit", &["b"], 0.125),
            unit("kbit", &["kilobit"], 125.0),
            unit("Mbit", &["Mb", "megabit"], 125_000.0),
            unit("Gbit", &["Gb", "gigabit"], 125_000_000.0),
        ],
    },
];

/// Converts an amount between two units of the same dimension. Ounces
/// between a mass and a volume are fluid ounces (`ounces in a cup`).
pub fn convert_units(args: ConvertArgs) -> Result<ConvertOutput, ToolError> {
    let fluid = |unit: &str| match find_unit(unit) {
        Some((dimension, found)) if dimension.name == "mass" && found.symbol == "oz" => {
            Some("fl oz".to_string())
        }
        _ => None,
    };
    let volume = |unit: &str| find_unit(unit).is_some_and(|(d, _)| d.name == "volume");
    if volume(&args.to) {
        if let Some(from) = fluid(&args.from) {
            return convert_units(ConvertArgs { from, ..args });
        }
    }
    if volume(&args.from) {
        if let Some(to) = fluid(&args.to) {
            return convert_units(ConvertArgs { to, ..args });
        }
    }
    let (from_dimension, from) = find_unit(&args.from).ok_or_else(|| {
        let other = find_unit(&args.to).map(|(dimension, _)| dimension);
        unknown_unit(&args.from, other)
    })?;
    let (to_dimension, to) =
        find_unit(&args.to).ok_or_else(|| unknown_unit(&args.to, Some(from_dimension)))?;
    if from_dimension.name != to_dimension.name {
        return Err(ToolError::Failed(format!(
            "cannot convert {} ({}) to {} ({})",
            from.symbol, from_dimension.name, to.symbol, to_dimension.name
        )));
    }
    let base = (args.value + from.offset) * from.scale;
    if from_dimension.name == "temperature" && base < 0.0 {
        return Err(ToolError::Failed(format!(
            "{} {} is below absolute zero",
            args.value, from.symbol
        )));
    }
    let value = base / to.scale - to.offset;
    let offset_noise = 1e-9 * from.offset.abs().max(to.offset.abs());
    let value = if value.abs() < offset_noise {
        0.0
    } else {
        value
    };
    if !value.is_finite() {
        return Err(ToolError::Failed("the result is out of range".into()));
    }
    let result = round_significant(value, 6);
    Ok(ConvertOutput {
        conversion: format!("{} {} = {result} {}", args.value, from.symbol, to.symbol),
        result,
        unit: to.symbol.to_string(),
    })
}

fn unknown_unit(name: &str, dimension: Option<&Dimension>) -> ToolError {
    let known = match dimension {
        Some(d) => format!("{} units: {}", d.name, symbols(d)),
        None => DIMENSIONS
            .iter()
            .map(|d| format!("{}: {}", d.name, symbols(d)))
            .collect::<Vec<_>>()
            .join("; "),
    };
    ToolError::Failed(format!("unknown unit `{name}`. Known {known}"))
}

fn symbols(dimension: &Dimension) -> String {
    dimension
        .units
        .iter()
        .map(|u| u.symbol)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether `name` names a unit this toolbox converts (`miles`, `kg`,
/// `fahrenheit`), not a place or a thing (`vienna`).
pub fn is_unit(name: &str) -> bool {
    find_unit(name).is_some()
}

/// Finds a unit by symbol or name: exact case first, then any case, then
/// without a plural ending.
fn find_unit(name: &str) -> Option<(&'static Dimension, &'static Unit)> {
    let wanted = normalize_unit_name(name);
    let singular = [wanted.strip_suffix("es"), wanted.strip_suffix('s')];
    let attempts = std::iter::once((wanted.as_str(), true))
        .chain(std::iter::once((wanted.as_str(), false)))
        .chain(singular.into_iter().flatten().map(|s| (s, false)));
    for (candidate, exact_case) in attempts {
        if candidate.is_empty() {
            continue;
        }
        for dimension in DIMENSIONS {
            let found = dimension.units.iter().find(|u| {
                std::iter::once(u.symbol)
                    .chain(u.names.iter().copied())
                    .any(|n| {
                        if exact_case {
                            n == candidate
                        } else {
                            n.eq_ignore_ascii_case(candidate)
                        }
                    })
            });
            if let Some(unit) = found {
                return Some((dimension, unit));
            }
        }
    }
    None
}

fn normalize_unit_name(name: &str) -> String {
    let text = name.trim().replace('°', "");
    let text = text.trim();
    let lower = text.to_ascii_lowercase();
    let text = ["degrees ", "degree ", "deg "]
        .iter()
        .find(|prefix| lower.starts_with(*prefix))
        .map_or(text, |prefix| text[prefix.len()..].trim());
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Arguments of `statistics`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatisticsArgs {
    /// The numbers, e.g. [3, 1, 4, 1, 5].
    #[schemars(length(min = 1, max = 10000))]
    pub numbers: Vec<f64>,
}

/// Result of `statistics`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct StatisticsOutput {
    /// How many numbers.
    pub count: usize,
    /// Their sum.
    pub sum: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Middle value (mean of the two middle values for an even count).
    pub median: f64,
    /// Smallest number.
    pub min: f64,
    /// Largest number.
    pub max: f64,
    /// Largest minus smallest.
    pub range: f64,
    /// Population standard deviation.
    pub stdev_population: f64,
    /// Sample standard deviation (absent for a single number).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stdev_sample: Option<f64>,
    /// The most frequent values; empty when no value repeats.
    pub mode: Vec<f64>,
}

/// Summary statistics of a list of numbers.
pub fn statistics(args: StatisticsArgs) -> Result<StatisticsOutput, ToolError> {
    let numbers = args.numbers;
    if numbers.is_empty() {
        return Err(ToolError::Failed("give at least one number".into()));
    }
    if numbers.len() > MAX_NUMBERS {
        return Err(ToolError::Failed(format!(
            "at most {MAX_NUMBERS} numbers are accepted"
        )));
    }
    let count = numbers.len();
    let n = count as f64;
    let sum: f64 = numbers.iter().sum();
    let mean = sum / n;
    let squares: f64 = numbers.iter().map(|x| (x - mean).powi(2)).sum();
    let mut sorted = numbers.clone();
    sorted.sort_by(f64::total_cmp);
    let median = if count % 2 == 1 {
        sorted[count / 2]
    } else {
        (sorted[count / 2 - 1] + sorted[count / 2]) / 2.0
    };
    let round = |x: f64| round_significant(x, 12);
    Ok(StatisticsOutput {
        count,
        sum: round(sum),
        mean: round(mean),
        median: round(median),
        min: sorted[0],
        max: sorted[count - 1],
        range: round(sorted[count - 1] - sorted[0]),
        stdev_population: round((squares / n).sqrt()),
        stdev_sample: (count > 1).then(|| round((squares / (n - 1.0)).sqrt())),
        mode: modes(&sorted),
    })
}

fn modes(sorted: &[f64]) -> Vec<f64> {
    let mut frequency: Vec<(f64, usize)> = Vec::new();
    for &x in sorted {
        match frequency.last_mut() {
            Some((value, n)) if *value == x => *n += 1,
            _ => frequency.push((x, 1)),
        }
    }
    let top = frequency.iter().map(|(_, n)| *n).max().unwrap_or(0);
    if top < 2 {
        return Vec::new();
    }
    frequency
        .into_iter()
        .filter(|(_, n)| *n == top)
        .map(|(x, _)| x)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_equation_is_read_for_its_computation() {
        assert_eq!(calc("80000 + 50000 = 130000").unwrap(), 130000.0);
        assert_eq!(calc("16 - 3 - 4 = 10").unwrap(), 9.0);
        assert_eq!(calc("profit = 200000 - 130000").unwrap(), 70000.0);
        assert_eq!(calc("= 2*3").unwrap(), 6.0);
        assert!(calc("1 = 2 = 3").is_err());
        assert!(calc("2 <= 3").is_err());
    }

    fn calc(expression: &str) -> Result<f64, ToolError> {
        calculate(CalculateArgs {
            expression: expression.into(),
        })
        .map(|o| o.result)
    }

    fn convert(value: f64, from: &str, to: &str) -> Result<(f64, String), ToolError> {
        convert_units(ConvertArgs {
            value,
            from: from.into(),
            to: to.into(),
        })
        .map(|o| (o.result, o.unit))
    }

    fn failure(result: Result<impl std::fmt::Debug, ToolError>) -> String {
        match result {
            Err(ToolError::Failed(message)) => message,
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn calculate_follows_precedence_and_parentheses() {
        assert_eq!(calc("17*6+14").unwrap(), 116.0);
        assert_eq!(calc("(2+3)*4").unwrap(), 20.0);
        assert_eq!(calc("2^10").unwrap(), 1024.0);
        assert_eq!(calc("2**3").unwrap(), 8.0);
        assert_eq!(calc("10 / 4").unwrap(), 2.5);
        assert_eq!(calc("-3 + 5").unwrap(), 2.0);
        assert_eq!(calc("0.1+0.2").unwrap(), 0.3);
        assert_eq!(calc("1.5e-3*2").unwrap(), 0.003);
        assert_eq!(calc("2E3 + .5").unwrap(), 2000.5);
        assert_eq!(calc("e^2").unwrap(), 7.38905609893);
    }

    #[test]
    fn calculate_knows_functions_and_constants() {
        assert_eq!(calc("sqrt(16)").unwrap(), 4.0);
        assert_eq!(calc("factorial(5)").unwrap(), 120.0);
        assert_eq!(calc("factorial(0)").unwrap(), 1.0);
        assert!(calc("factorial(2.5)").is_err());
        assert!(calc("factorial(171)").is_err());
        assert_eq!(calc("abs(-7.5)").unwrap(), 7.5);
        assert_eq!(calc("log(1000)").unwrap(), 3.0);
        assert_eq!(calc("ln(e)").unwrap(), 1.0);
        assert_eq!(calc("cos(0)").unwrap(), 1.0);
        assert_eq!(calc("sin(pi/2)").unwrap(), 1.0);
        assert_eq!(calc("tan(0)").unwrap(), 0.0);
        assert_eq!(
            calc("2*pi").unwrap(),
            round_significant(std::f64::consts::TAU, 12)
        );
        assert_eq!(
            calc("PI").unwrap(),
            round_significant(std::f64::consts::PI, 12)
        );
        assert_eq!(round_significant(2.0 / 3.0, 4), 0.6667);
    }

    #[test]
    fn calculate_takes_percentages() {
        assert_eq!(calc("7.5% of 2289").unwrap(), 171.675);
        assert_eq!(calc("7.5% * 2289").unwrap(), 171.675);
        assert_eq!(calc("2289 * 7.5 %").unwrap(), 171.675);
        assert_eq!(calc("200 + 10%").unwrap(), 200.1);
        assert!(failure(calc("5 % 3")).contains("cannot compute"));
    }

    #[test]
    fn calculate_reads_numbers_in_words() {
        assert_eq!(calc("What is fifteen percent of eighty?").unwrap(), 12.0);
        assert_eq!(calc("seventeen times twenty three").unwrap(), 391.0);
        assert_eq!(calc("one hundred and five minus forty-two").unwrap(), 63.0);
        assert_eq!(calc("two point five squared").unwrap(), 6.25);
        assert!(calc("Why is the sky blue?").is_err());
    }

    #[test]
    fn calculate_reads_everyday_money_questions() {
        let cases: &[(&str, f64)] = &[
            ("Add these up for me: $1,284.60, $947.35 and $2,318.90.", 4550.85),
            ("what do 12, 15 and 20 add up to", 47.0),
            ("What is ₹2,17,500 divided by 25?", 8700.0),
            ("If I put $8,000 in a term deposit at 5.25% for one year, how much interest do I earn?", 420.0),
            ("I'm putting ₹1,50,000 in a fixed deposit at 7.25% simple interest. How much interest will I get after one year?", 10875.0),
            ("What is the interest on 5000 at 4% simple interest for 3 years?", 600.0),
            ("How much will I have after a year if I put 2000 in at 3% interest?", 2060.0),
            ("power tools are twenty percent off at the merchant this week how much would a three hundred and eighty nine dollar drill come to", 311.2),
            ("a box of a thousand nails costs forty two bucks how many cents is that per nail", 4.2),
            ("my son has physics homework eighty kilometres per hour is how many metres per second", 22.2222),
            ("i quoted four thousand eight hundred for the fence the materials came to two thousand one hundred and thirty five and the labour hire was twelve hundred and sixty whats my profit", 1405.0),
            ("I grabbed 3 mince pies at $5.20 each and 2 flat whites at $4.80 each and paid with a $50 note. How much change do I get?", 24.8),
            ("I bought 3 mince pies at $5.20 each and paid with a $50 note. How much change do I get?", 34.4),
            ("Kids' rugby subs are $85 a kid for the season, plus $42 a kid for new boots. I've got two kids playing. What's the total?", 254.0),
            ("A pack of 10 shampoo sachets costs me ₱65 and I sell them tingi at ₱8 each. How much profit do I make on one pack?", 15.0),
            ("okay so a box of fifteen strips costs me four hundred and eighty rupees each strip has ten tablets and i sell one tablet for four rupees what is my profit on the full box", 120.0),
            ("okay so jeepney fare is thirteen pesos each way and i go to the palengke and back six days a week how much do i spend on fare in four weeks", 624.0),
            ("the bus is 3 dollars each way, 5 days a week, how much is that a week", 30.0),
            ("okay nine thousand and twelve minus two thousand eight hundred and fifty six what do i get", 6156.0),
            ("um the chinese in chinatown came to eighty six pound forty how much is a twelve and a half percent service charge on that", 10.8),
            ("i do four hours a day in the school kitchen at thirteen pound twenty an hour five days a week how much is that a week before tax", 264.0),
            ("Our kid did a car boot sale: £15 for the pitch, £8.50 in petrol, and she took £96.40. How much did she make?", 72.9),
            ("at the christmas fair i bought three raffle strips at two quid each and a go on the tombola for a pound fifty and paid with a tenner how much change do i get", 2.5),
            ("Add these for me: GH₵1,245.50, GH₵890.75, GH₵2,310 and GH₵465.25.", 4911.5),
            ("My trotro takings for six days: GH₵420, GH₵385, GH₵510, GH₵460, GH₵395 and GH₵530. What's the average per day?", 450.0),
            ("what be four hundred and seventy five times thirty six", 17100.0),
            ("okay so lunch at the chop bar came to three hundred and twelve cedis for four of us how much each person", 78.0),
            ("okay so the trotro fare went up from eight cedis to nine cedis fifty pesewas whats the percentage increase", 18.75),
            ("My brother in Atlanta says he drove at 65 miles per hour. How many km per hour is that?", 104.607),
            ("I sold 36 bags of sachet water at GH₵7 a bag. Each bag cost me GH₵5.50. What is my total profit?", 54.0),
            ("The dealer gives 5% bonus on data bundles. How much bonus if I buy GH₵200 worth?", 10.0),
            ("okay so the van goes through about forty two quid of diesel a week how much is that over fifty two weeks", 2184.0),
            ("take three thousand eight hundred and forty six away from eleven thousand?", 7154.0),
            ("okay so i had four thousand two hundred in checking and wrote a check for sixteen hundred eighty seven dollars and fifty cents how much is left in there", 2512.5),
            ("My husband flooded a rink in the yard, 40 by 24 feet. What is the area in square metres?", 89.1869),
            ("Darlene's cornbread recipe wants 3/4 cup of buttermilk and all I've got to measure with is a tablespoon. How many tablespoons is that?", 12.0),
            ("um i make forty six dollars an hour and overtime is time and a half i did nine hours of overtime this pay how much is that overtime worth", 621.0),
            ("The hotel for the tournament in Kingston is $189 a night for three nights and we're splitting the total evenly with another hockey family. What's our half?", 283.5),
        ];
        for (question, value) in cases {
            assert_eq!(calc(question).unwrap(), *value, "{question}");
        }
        for unsure in [
            "What is the interest on 5000 at 4% for 3 years?",
            "interest on 1000 at 2% compounded monthly for a year",
            "a case of 12 cans costs 9 dollars, I sell them for 1.25 each, what is my profit per can",
        ] {
            assert!(calc(unsure).is_err(), "{unsure}");
        }
    }

    #[test]
    fn pressures_convert_between_their_units() {
        assert_eq!(
            convert(65.0, "psi", "bar").unwrap(),
            (4.48159, "bar".into())
        );
        assert_eq!(convert(2.2, "bar", "psi").unwrap(), (31.9083, "psi".into()));
        assert_eq!(
            convert(1.0, "atmosphere", "kPa").unwrap(),
            (101.325, "kPa".into())
        );
        assert_eq!(
            convert(1013.0, "millibars", "inHg").unwrap(),
            (29.9139, "inHg".into())
        );
    }

    #[test]
    fn calculate_rejects_non_finite_results() {
        assert!(failure(calc("1/0")).contains("no finite value"));
        assert!(failure(calc("sqrt(-1)")).contains("no finite value"));
        assert!(failure(calc("10^400")).contains("no finite value"));
    }

    #[test]
    fn calculate_explains_bad_input() {
        let message = failure(calc("2 +* (3"));
        assert!(message.starts_with("cannot compute `2 +* (3`"), "{message}");
        assert!(message.contains("sqrt"), "{message}");
        assert!(failure(calc("x + 1")).contains("unknown name `x`"));
        for missing in ["2 pi", "2(3)", "2e"] {
            let message = failure(calc(missing));
            assert!(message.contains("an operator is missing"), "{message}");
        }
        assert!(failure(calc("   ")).contains("empty"));
        for nested in ["count(continents)", "sqrt(  ²  +  ²  )"] {
            let message = failure(calc(nested));
            assert_eq!(message.matches(SYNTAX).count(), 1, "{message}");
            assert!(!message.contains("Operator {"), "{message}");
        }
        let long = "1+".repeat(MAX_EXPRESSION_CHARS / 2) + "1";
        let message = failure(calc(&long));
        assert!(
            message.contains(&format!("longer than {MAX_EXPRESSION_CHARS}")),
            "{message}"
        );
    }

    #[test]
    fn converts_temperatures() {
        assert_eq!(convert(100.0, "C", "F").unwrap(), (212.0, "F".into()));
        assert_eq!(convert(32.0, "°F", "celsius").unwrap(), (0.0, "C".into()));
        assert_eq!(convert(0.0, "K", "C").unwrap(), (-273.15, "C".into()));
        assert_eq!(
            convert(-40.0, "degrees Fahrenheit", "C").unwrap(),
            (-40.0, "C".into())
        );
        assert!(failure(convert(-300.0, "C", "K")).contains("below absolute zero"));
    }

    #[test]
    fn converts_lengths_masses_volumes_times_speeds_and_data() {
        assert_eq!(convert(5.0, "km", "mi").unwrap(), (3.10686, "mi".into()));
        assert_eq!(convert(12.0, "inches", "feet").unwrap(), (1.0, "ft".into()));
        assert_eq!(convert(1.0, "lb", "g").unwrap(), (453.592, "g".into()));
        assert_eq!(convert(1.0, "gallon", "L").unwrap(), (3.78541, "L".into()));
        assert_eq!(convert(2.0, "hours", "min").unwrap(), (120.0, "min".into()));
        assert_eq!(
            convert(100.0, "km/h", "mph").unwrap(),
            (62.1371, "mph".into())
        );
        assert_eq!(convert(2.0, "GB", "MB").unwrap(), (2000.0, "MB".into()));
        assert_eq!(convert(1.0, "GiB", "MiB").unwrap(), (1024.0, "MiB".into()));
        assert_eq!(convert(8.0, "Mb", "MB").unwrap(), (1.0, "MB".into()));
        assert_eq!(convert(3.0, "mb", "kB").unwrap(), (3000.0, "kB".into()));
        assert_eq!(
            convert(40.0, "fathoms", "metres").unwrap(),
            (73.152, "m".into())
        );
        assert_eq!(convert(1.0, "furlong", "yd").unwrap(), (220.0, "yd".into()));
    }

    #[test]
    fn unit_errors_name_the_known_units() {
        let message = failure(convert(1.0, "km", "parsecs"));
        assert!(
            message.starts_with("unknown unit `parsecs`. Known length units: m, km,"),
            "{message}"
        );
        let message = failure(convert(1.0, "cubit", "bananas"));
        assert!(message.contains("temperature: K, C, F"), "{message}");
        assert_eq!(
            failure(convert(1.0, "km", "kg")),
            "cannot convert km (length) to kg (mass)"
        );
    }

    #[test]
    fn statistics_of_a_list() {
        let out = statistics(StatisticsArgs {
            numbers: vec![2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0],
        })
        .unwrap();
        assert_eq!(out.count, 8);
        assert_eq!(out.sum, 40.0);
        assert_eq!(out.mean, 5.0);
        assert_eq!(out.median, 4.5);
        assert_eq!(out.min, 2.0);
        assert_eq!(out.max, 9.0);
        assert_eq!(out.stdev_population, 2.0);
        assert_eq!(out.stdev_sample, Some(2.1380899353));
        assert_eq!(out.mode, vec![4.0]);
    }

    #[test]
    fn statistics_edge_cases() {
        let one = statistics(StatisticsArgs { numbers: vec![3.5] }).unwrap();
        assert_eq!((one.median, one.stdev_population), (3.5, 0.0));
        assert_eq!(one.stdev_sample, None);
        assert!(one.mode.is_empty());
        let tie = statistics(StatisticsArgs {
            numbers: vec![3.0, 1.0, 3.0, 1.0, 2.0],
        })
        .unwrap();
        assert_eq!(tie.mode, vec![1.0, 3.0]);
        assert_eq!(tie.median, 2.0);
        assert!(failure(statistics(StatisticsArgs { numbers: vec![] })).contains("at least one"));
    }
}
