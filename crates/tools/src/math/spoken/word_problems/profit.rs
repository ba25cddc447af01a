//! Profit: on a pack bought whole and sold by the piece or the weight, on
//! so many sold, and the price to sell at for a profit on each.

use super::*;

/// `a pack of 10 shampoo sachets costs me ₱65`: a pack's count and price.
static PACK_BOUGHT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(?:pack|packet|box|case|crate|carton|bag|tray|sack|bundle|sleeve|tub|jar)\s+of\s+(\d+)\s+(?:[a-z'-]+\s+){0,2}?[a-z'-]+\s+(?:costs?|is|was|for)\s+(?:me\s+|us\s+)?[SIGNS]?(\d+(?:\.\d+)?)\b"))
        .expect("a valid regex")
});

/// `a 10 kilo box of prawns for €145`: a pack's weight and price.
static WEIGHT_BOUGHT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(\d+(?:\.\d+)?)\s*(kilos?|kg|pounds?|lbs?)\s+(?:pack|box|case|crate|bag|tray|sack|tub|bucket)\s+(?:of\s+)?(?:[a-z'-]+\s+){0,2}?(?:costs?|is|was|for|at)\s+(?:me\s+|us\s+)?[SIGNS]?(\d+(?:\.\d+)?)\b"))
        .expect("a valid regex")
});

/// `sold the lot at €22 a kilo`: the price of each unit of weight sold.
static SOLD_BY_WEIGHT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(?:sold|sell)\s+(?:[a-z'-]+\s+){0,3}?(?:at|for)\s+[SIGNS]?(\d+(?:\.\d+)?)\s*(?:a|an|per|the)\s+(kilo|kg|pound|lb)\b"))
        .expect("a valid regex")
});

/// The profit on a pack bought by its weight and sold by the weight: `a
/// 10 kilo box of prawns for €145 and sold the lot at €22 a kilo` is
/// `10 * 22 - 145`, when both weigh in the same unit and the text gives
/// those numbers only.
fn profit_on_a_weight(text: &str) -> Option<String> {
    let bought = WEIGHT_BOUGHT.captures(text)?;
    let sold = SOLD_BY_WEIGHT.captures(text)?;
    let unit = |u: &str| u.to_lowercase().starts_with(['k']);
    if unit(&bought[2]) != unit(&sold[2]) || NUMBER.find_iter(text).count() != 3 {
        return None;
    }
    Some(format!("{} * {} - {}", &bought[1], &sold[1], &bought[3]))
}

/// `each strip has 10 tablets`: how many of a smaller thing each holds.
static EACH_HOLDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\beach\s+(?:one\s+|[a-z]+\s+)?(?:has|holds|contains|is)\s+(\d+)\s+[a-z]+")
        .expect("a valid regex")
});

/// `I sell them at ₱8 each`, `i sell one tablet for 4 rupees`, `we sold
/// all of them at 40 rupees a cup`: the price each one sells for.
static SOLD_EACH_AT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\bsell(?:s|ing)?\s+(?:them|it|each|one|a|an|every)?\s*(?:[a-z'-]+\s+){0,2}?(?:at|for)\s+[SIGNS]?(\d+(?:\.\d+)?)\b|\bsold\s+(?:all\s+(?:of\s+)?(?:them|it)|them\s+all|the\s+lot|them|each)\s+(?:at|for)\s+[SIGNS]?(\d+(?:\.\d+)?)\s*(?:(?:CURRENCIES)\s+)?(?:a|an|per|each)\b"))
        .expect("a valid regex")
});

/// `made 40 cups`, `baked 60 loaves`: how many were made.
static MADE_MANY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:made|make|makes|baked|cooked|brewed|prepared)\s+(\d+)\s+[a-z]")
        .expect("a valid regex")
});

/// The price each one sells for ([`SOLD_EACH_AT`]).
fn price_sold_at(text: &str) -> Option<regex::Match<'_>> {
    let found = SOLD_EACH_AT.captures(text)?;
    found.get(1).or(found.get(2))
}

/// `sell 1 tablet`, `on 1 pack`: one of the things, no number given.
static ONE_OF_THEM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(on|sell)\s+1\s+([a-z])").expect("a valid regex"));

/// `a sack of 25 cabbages cost me 175`: so many things bought together
/// for a price.
static BOUGHT_TOGETHER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(?:case|pack|packet|box|crate|carton|tray|bag|sack|bundle|tub|pallet|bale|lot)\s+of\s+(\d+)\s+(?:[a-z'-]+\s+){1,2}?(?:costs?|cost\s+me|costing|was|were|for|at)\s+[SIGNS]?(\d+(?:\.\d+)?)\b"))
        .expect("a valid regex")
});

/// `make 3 kwacha profit on each cabbage`: the profit wanted on one.
static PROFIT_ON_EACH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b[SIGNS]?(\d+(?:\.\d+)?)\s*(?:(?:CURRENCIES)\s+)?(?:profit|more)\s+(?:on|per|for|from)\s+(?:each|every|a|one)\b"))
        .expect("a valid regex")
});

/// `what price should i sell each one`, `how much should I sell them for`:
/// asks the price of one to sell at.
static SELLING_PRICE_ASKED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:what\s+price|how\s+much)\s+(?:should|do|must|would)\s+(?:i|we)\s+(?:sell|charge)\b")
        .expect("a valid regex")
});

/// The price to sell each of things bought together at for a profit on
/// each: `a sack of 25 cabbages cost me 175 kwacha and i want to make 3
/// kwacha profit on each cabbage what price should i sell each one` is
/// `175 / 25 + 3`. The text gives those numbers only.
pub(in crate::math::spoken) fn price_for_a_profit_on_each(text: &str) -> Option<String> {
    SELLING_PRICE_ASKED.find(text)?;
    let bought = BOUGHT_TOGETHER.captures(text)?;
    let profit = PROFIT_ON_EACH.captures(text)?;
    (NUMBER.find_iter(text).count() == 3)
        .then(|| format!("{} / {} + {}", &bought[2], &bought[1], &profit[1]))
}

/// The profit on a pack bought whole and sold by the piece: `A pack of 10
/// shampoo sachets costs me ₱65 and I sell them at ₱8 each. How much
/// profit do I make on one pack?` is `10 * 1 * 8 - 65`; with `each strip
/// has 10 tablets` the pieces of each thing counted in. The text gives
/// those numbers only, and asks the profit on the pack, not on a piece.
pub(in crate::math::spoken) fn profit_on_a_pack(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let per_piece = [
        "profit per",
        "profit on each",
        "profit on one tablet",
        "profit each",
    ]
    .iter()
    .any(|w| lower.contains(w));
    if !lower.contains("profit") || per_piece {
        return None;
    }
    if let Some(weighed) = profit_on_a_weight(text) {
        return Some(weighed);
    }
    let text = ONE_OF_THEM.replace_all(text, "$1 one $2");
    let text = text.as_ref();
    let pack = PACK_BOUGHT.captures(text)?;
    let sold = price_sold_at(text)?;
    let inner = EACH_HOLDS.captures(text);
    let given = 3 + usize::from(inner.is_some());
    if NUMBER.find_iter(text).count() != given {
        return None;
    }
    let pieces = inner
        .as_ref()
        .map_or("1", |found| found.get(1).map_or("1", |n| n.as_str()));
    Some(format!(
        "{} * {pieces} * {} - {}",
        &pack[1],
        sold.as_str(),
        &pack[2]
    ))
}

/// `Each bag cost me GH₵5.50`, `they cost me 5.50 a bag`: what each cost.
static COST_EACH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\beach(?:\s+[a-z]+)?\s+(?:cost|costs)\s+(?:me\s+|us\s+)?[SIGNS]?(\d+(?:\.\d+)?)|\b(?:cost|costs)\s+(?:me\s+|us\s+)?[SIGNS]?(\d+(?:\.\d+)?)\s*(?:(?:CURRENCIES)\s+)?(?:a|an|per|each)\b"))
        .expect("a valid regex")
});

/// The profit on so many sold, each at a price and each costing less:
/// `I sold 36 bags of sachet water at GH₵7 a bag. Each bag cost me
/// GH₵5.50. What is my total profit?` is `36 * (7 - 5.50)`. The text gives
/// those numbers only.
pub(in crate::math::spoken) fn profit_on_each_sold(text: &str) -> Option<String> {
    if !text.to_lowercase().contains("profit") {
        return None;
    }
    let (_, sold) = items_sold(text)?;
    let cost = COST_EACH.captures(text)?;
    let cost = cost.get(1).or(cost.get(2))?;
    if NUMBER.find_iter(text).count() != 3 {
        return None;
    }
    Some(format!("{} * ({} - {})", &sold[1], &sold[2], cost.as_str()))
}

/// `it costs me J$520 to make`: what one costs to make or buy.
static COST_TO_MAKE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\bcosts?\s+(?:me\s+|us\s+|him\s+|her\s+|them\s+)?(?:about\s+)?[SIGNS]?(\d+(?:\.\d+)?)\s*(?:(?:CURRENCIES)\s+)?to\s+(?:make|produce|cook|bake|prepare|grow|buy|get|brew)\b"))
        .expect("a valid regex")
});

/// `If I sell 45 quarters today`: how many are sold.
static SELL_MANY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:sell|sold|sells|selling)\s+(\d+)\s+[a-z]").expect("a valid regex")
});

/// The profit on so many sold, when one sells at a price and costs less
/// to make: `I sell a quarter chicken for J$900 and it costs me J$520 to
/// make. If I sell 45 quarters today, what's my profit?` is `45 * (900 -
/// 520)`; so many made, when all were sold (`our stall made 40 cups …
/// sold all of them at 40 rupees a cup`). The text gives those numbers
/// only.
pub(in crate::math::spoken) fn profit_on_many_sold(text: &str) -> Option<String> {
    if !text.to_lowercase().contains("profit") || NUMBER.find_iter(text).count() != 3 {
        return None;
    }
    let price = price_sold_at(text)?;
    let cost = COST_TO_MAKE
        .captures(text)
        .and_then(|found| found.get(1))
        .or_else(|| {
            let found = COST_EACH.captures(text)?;
            found.get(1).or(found.get(2))
        })?;
    let count = SELL_MANY.captures(text).or_else(|| {
        SELL_ALL.find(text)?;
        MADE_MANY.captures(text)
    })?;
    let count = count.get(1)?;
    let distinct = count.start() != price.start() && count.start() != cost.start();
    distinct.then(|| {
        format!(
            "{} * ({} - {})",
            count.as_str(),
            price.as_str(),
            cost.as_str()
        )
    })
}

/// `sold 36 bags at 7 a bag`: the [`ITEMS_AT_A_PRICE`] right after
/// `sold`, read from the byte offset returned with it.
fn items_sold(text: &str) -> Option<(usize, Captures<'_>)> {
    // ASCII lowercase keeps every byte offset of `text`.
    let from = text.to_ascii_lowercase().find("sold ")? + "sold ".len();
    let sold = ITEMS_AT_A_PRICE
        .captures(&text[from..])
        .filter(|items| items.get(0).is_some_and(|m| m.start() == 0))?;
    Some((from, sold))
}

/// `sold 1800 bushels of corn at 4.12 a bushel`: what was taken in for so
/// many sold at a price, and where its two numbers start.
pub(super) fn sold_at_a_price(text: &str) -> Option<(String, Vec<usize>)> {
    let (from, sold) = items_sold(text)?;
    let (count, price) = (sold.get(1)?, sold.get(2)?);
    Some((
        format!("{} * {}", count.as_str(), price.as_str()),
        vec![from + count.start(), from + price.start()],
    ))
}

/// `bought 50 pairs of earrings for GH₵400 in total`: how many were
/// bought, and what all of them cost.
static BOUGHT_FOR_ALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(?:bought|buy|got|paid\s+for)\s+(\d+)\s+(?:[a-z'-]+\s+){0,4}?for\s+[SIGNS]?(\d+(?:\.\d+)?)\s*(?:(?:CURRENCIES)\s+)?(?:in\s+total|altogether|all\s+together|total|for\s+the\s+lot|for\s+all\s+of\s+them)\b"))
        .expect("a valid regex")
});

/// `if I sell 30`, `if I sell all 50`: how many of the lot are sold.
static SELL_COUNT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bsell\s+(?:all\s+)?(\d+)\b").expect("a valid regex"));

/// `sell them all`: the whole lot sold.
static SELL_ALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:sell|sold)\s+(?:all|them\s+all|all\s+of\s+them|every\s+one|the\s+lot)\b")
        .expect("a valid regex")
});

/// The profit on a lot bought for one total and sold by the piece: `I
/// bought 50 pairs of earrings for GH₵400 in total and I sell each pair at
/// GH₵15. What's my profit if I sell all 50?` is `50 * 15 - 400`. The
/// text gives those numbers only (the count may be said again).
pub(in crate::math::spoken) fn profit_on_a_lot(text: &str) -> Option<String> {
    if !text.to_lowercase().contains("profit") {
        return None;
    }
    let lot = BOUGHT_FOR_ALL.captures(text)?;
    let (count, total) = (lot.get(1)?, lot.get(2)?);
    let price = price_sold_at(text)?;
    let sold = match SELL_COUNT.captures(text).and_then(|found| found.get(1)) {
        Some(sold) => sold.as_str(),
        None if SELL_ALL.is_match(text) => count.as_str(),
        None => return None,
    };
    let known = [count.as_str(), total.as_str(), price.as_str(), sold];
    NUMBER
        .find_iter(text)
        .all(|n| known.contains(&n.as_str()))
        .then(|| format!("{sold} * {} - {}", price.as_str(), total.as_str()))
}
