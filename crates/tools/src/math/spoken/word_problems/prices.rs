//! Prices of one and of many: so many at the price of one, the price of
//! one of a pack, and what one use of something bought by measure costs.

use super::*;

/// `A sachet of coffee is ₱7. How much for 35 sachets?`: the price of
/// one thing, then how much so many of them come to.
static ONE_THEN_MANY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)^\s*(?:if\s+)?(?:(an?|one|1|each|the)\s+)?([a-z0-9' -]+?)\s+(?:is|costs?|sells\s+for|goes\s+for)\s+(?:[A-Z]{3}\s?)?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?\bhow\s+much\s+(?:is\s+it\s+|are\s+|would\s+|will\s+|do\s+|does\s+)?(?:[a-z]+\s+){0,3}?for\s+(\d+)(?:\s+([a-z]+))?\s*[?.!]?\s*$"))
        .expect("a valid regex")
});

/// `5 litres of developer for £40`: an amount of something bought by its
/// volume or weight, and its price.
static MEASURE_BOUGHT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(\d+(?:\.\d+)?)\s*(litres?|liters?|l|ml|millilit(?:er|re)s?|kilos?|kg|kilograms?|grams?|g)\s+(?:of\s+)?(?:[a-z'-]+\s+){0,4}?(?:for|at|costs?|cost\s+me)\s+[SIGNS]?(\d+(?:\.\d+)?)\b"))
        .expect("a valid regex")
});

/// `each colour uses 150 ml`: how much of it one use takes, and what a
/// use is called.
static EACH_USES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\beach\s+([a-z]+)\s+(?:uses|takes|needs)\s+(?:about\s+)?(\d+(?:\.\d+)?)\s*(litres?|liters?|l|ml|millilit(?:er|re)s?|kilos?|kg|kilograms?|grams?|g)\b")
        .expect("a valid regex")
});

/// Millilitres or grams in one of a unit of [`MEASURE_BOUGHT`].
fn in_small_units(unit: &str) -> f64 {
    match unit.to_lowercase().as_str() {
        "ml" | "g" => 1.0,
        u if u.starts_with("milli") || u.starts_with("gram") => 1.0,
        _ => 1000.0,
    }
}

/// What one use of something bought by its measure costs: `I bought 5
/// litres of developer for £40 and each colour uses 150 ml. What does the
/// developer cost me per colour?` is `40 * 150 / 5000`. The text gives
/// those numbers only, both measures of one kind, and asks per use.
pub(in crate::math::spoken) fn cost_of_one_use(text: &str) -> Option<String> {
    let bought = MEASURE_BOUGHT.captures(text)?;
    let uses = EACH_USES.captures(text)?;
    let asked = ASKED_PER.captures(text)?;
    let volume = |u: &str| u.to_lowercase().starts_with(['l', 'm']);
    if volume(&bought[2]) != volume(&uses[3])
        || singular(&asked[1].to_lowercase()) != singular(&uses[1].to_lowercase())
        || NUMBER.find_iter(text).count() != 3
    {
        return None;
    }
    let bought_small = bought[1].parse::<f64>().ok()? * in_small_units(&bought[2]);
    let use_small = uses[2].parse::<f64>().ok()? * in_small_units(&uses[3]);
    Some(format!("{} * {use_small} / {bought_small}", &bought[3]))
}

/// `a pack of 100 glass beads costs GH₵35`: how many things came in a
/// pack, what they are, and what the pack cost.
static COUNT_BOUGHT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(?:pack|packet|bag|box|tub|jar|roll|bundle|set|carton|case|tray|tube)\s+of\s+(\d+)\s+(?:[a-z'-]+\s+){0,2}?([a-z]+)\s+(?:for|at|costs?|is|was|cost\s+me)\s+[SIGNS]?(\d+(?:\.\d+)?)\b"))
        .expect("a valid regex")
});

/// `each bracelet uses 20 beads`: how many of them one thing takes.
static EACH_USES_SOME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\beach\s+([a-z]+)\s+(?:uses|takes|needs)\s+(\d+)\s+([a-z]+)\b")
        .expect("a valid regex")
});

/// `for one bracelet`, `per bracelet`: the one thing asked about.
static FOR_ONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:for|per|of|on)\s+(?:1|a|an|each|every)\s+([a-z]+)\b")
        .expect("a valid regex")
});

/// What the part of a pack one thing takes costs: `A pack of 100 glass
/// beads costs GH₵35 and each bracelet uses 20 beads. How much do the
/// beads for one bracelet cost me?` is `35 * 20 / 100`. The text gives
/// those numbers only, of the same things.
pub(in crate::math::spoken) fn cost_of_some_of_a_pack(text: &str) -> Option<String> {
    let bought = COUNT_BOUGHT.captures(text)?;
    let uses = EACH_USES_SOME.captures(text)?;
    let asked = FOR_ONE.captures_iter(text).last()?;
    let same = |a: &str, b: &str| singular(&a.to_lowercase()) == singular(&b.to_lowercase());
    let whole = asked.get(0)?;
    let given = NUMBER
        .find_iter(text)
        .filter(|n| n.start() < whole.start() || n.end() > whole.end())
        .count();
    (same(&bought[2], &uses[3]) && same(&asked[1], &uses[1]) && given == 3)
        .then(|| format!("{} * {} / {}", &bought[3], &uses[2], &bought[1]))
}

/// `$19.20 a hundredweight. What's that for 850 hundredweight?`: a price
/// for each of a unit, then so many of the unit asked.
static A_UNITS_PRICE_THEN_MANY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)[SIGNS]?(\d+(?:\.\d+)?)\s*(?:(?:CURRENCIES)\s+)?(?:a|an|per)\s+([a-z]+)\b[^\d]*?\b(?:what(?:'s|s|\s+is)|how\s+much\s+is)\s+(?:that|it)\s+(?:for|on)\s+(\d+(?:\.\d+)?)\s+([a-z]+)\s*[?.!]?\s*$"))
        .expect("a valid regex")
});

/// So many things at the price of one said before: `A sachet of 3-in-1
/// coffee is ₱7. How much for 35 sachets?` is `35 * 7`, when the things
/// counted are the thing priced.
pub(in crate::math::spoken) fn many_at_the_price_of_one(text: &str) -> Option<String> {
    if let Some(found) = A_UNITS_PRICE_THEN_MANY.captures(text) {
        let same = singular(&found[2].to_lowercase()) == singular(&found[4].to_lowercase());
        if same && NUMBER.find_iter(text).count() == 2 {
            return Some(format!("{} * {}", &found[3], &found[1]));
        }
    }
    let text = NAMED_WITH_NUMBERS.replace_all(text, "combo");
    let found = ONE_THEN_MANY.captures(&text)?;
    let the_one = found
        .get(1)
        .is_none_or(|det| det.as_str().eq_ignore_ascii_case("the"));
    let product = format!("{} * {}", &found[4], &found[3]);
    let Some(counted) = found.get(5) else {
        return (!the_one).then_some(product);
    };
    let counted = singular(&counted.as_str().to_lowercase());
    let thing = found[2].to_lowercase();
    let named = thing.split_whitespace().any(|w| singular(w) == counted);
    let a_head = PAID_A_HEAD.contains(&thing.split_whitespace().next().unwrap_or(""))
        && PEOPLE.contains(&counted.as_str());
    (named || a_head).then_some(product)
}

/// What each person pays for themselves (`the fare is 21 rand`).
const PAID_A_HEAD: &[&str] = &[
    "fare",
    "ticket",
    "entry",
    "admission",
    "ride",
    "seat",
    "plate",
    "meal",
    "entrance",
    "pass",
];

/// People counted, in the singular (`15 passengers`).
const PEOPLE: &[&str] = &[
    "person",
    "people",
    "passenger",
    "adult",
    "kid",
    "child",
    "children",
    "guest",
    "rider",
    "student",
    "pupil",
    "customer",
];

/// `3-in-1`, `2-in-1`: a name with numbers in it.
static NAMED_WITH_NUMBERS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b\d+-in-\d+\b").expect("a valid regex"));

/// `a sleeve of 50 plastic cups is 12.50, how much is that per cup`: a
/// pack of so many things at a price, asked per thing.
static PACK_PRICED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(\d+)\s+(?:[a-z-]+\s+){0,2}?([a-z]+)\s+(?:is|are|costs?|for|at)\s+[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*\b(?:per|each|a|an|for\s+(?:one|1|each|a|an))\s+([a-z]+)\b[^\d]*$"))
        .expect("a valid regex")
});

/// The price of one of a pack's things, when the text holds the two
/// numbers only (and perhaps the `1` of `for 1 egg`) and asks per the
/// thing counted, or per anything but the container: `a sleeve of 50
/// plastic cups is 12.50 how much is that per cup` is `12.50 / 50`, and
/// so is a 50-pack.
pub(in crate::math::spoken) fn price_of_one(text: &str) -> Option<String> {
    let text = N_PACK.replace_all(text, "$2 of $1");
    let text = text.as_ref();
    let one_asked = usize::from(FOR_ONE_AT_THE_END.is_match(text));
    if NUMBER.find_iter(text).count() != 2 + one_asked {
        return None;
    }
    if let Some(found) = PACK_PRICED.captures(text) {
        let same = singular(&found[2].to_lowercase()) == singular(&found[4].to_lowercase());
        if same {
            return Some(format!("{} / {}", &found[3], &found[1]));
        }
    }
    let found = CONTAINER_PRICED.captures(text)?;
    let asked = found.get(4).map(|m| singular(&m.as_str().to_lowercase()));
    let container = singular(&found[1].to_lowercase());
    (asked.as_ref() != Some(&container)).then(|| format!("{} / {}", &found[3], &found[2]))
}

/// `a 12-pack of`, `a 6 pack`: a container said by its count, as `pack of
/// 12`.
static N_PACK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+)[- ](pack|case|box|tray|carton|crate)\b(?:\s+of\b)?")
        .expect("a valid regex")
});

/// `how much for 1 egg`: the price of one asked, its `1` no amount given.
static FOR_ONE_AT_THE_END: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bfor\s+1\s+[a-z]+\s*[?.!]?\s*$").expect("a valid regex"));

/// `A case of 24 Red Stripe costs me J$6,720. How much is that per
/// bottle?`: a container of so many at a price, asked per one of them,
/// whatever the one is called (not the container itself).
static CONTAINER_PRICED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(case|pack|packet|box|crate|carton|tray|bag|sack|bundle|sleeve|tub|jar|tin|flat|pallet|set|roll|block)\s+of\s+(\d+)\b[^\d]*?\b(?:is|are|costs?|was|were|for|at)\s+(?:me\s+|us\s+)?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*(?:\b(?:per|a|an|for\s+(?:one|1|each|a|an))\s+([a-z]+)|\b(?:each|apiece))\b[^\d]*$"))
        .expect("a valid regex")
});
