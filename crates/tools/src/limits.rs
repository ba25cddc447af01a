//! The `limits` toolbox: what this assistant cannot do, as a tool. A small
//! model asked for the weather reaches for a tool far more readily than it
//! admits it has none; this one reads a request, and when it needs what an
//! offline device lacks (the internet, an account, another device) answers
//! with an honest refusal to say. A request it does not recognise is an
//! error, so asking it is never a way to refuse everything.

use super::{typed_tool, Tool, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What the device cannot tell about the sun: asked only when a question
/// asks when ("dawn masses" are counted, not timed).
const SUN_TIMES: &str = "tell sunrise or sunset times";

/// Topics an offline device knows nothing of, wherever they are named,
/// and what the refusal says it cannot do.
const TOPICS: &[(&[&str], &str)] = &[
    (
        &[
            "weather",
            "forecast",
            "rain",
            "raining",
            "snow",
            "snowing",
            "sunny",
            "humidity",
            "umbrella",
            "pollen",
            "frost",
            "frosty",
            "storm",
            "stormy",
            "snowstorm",
            "blizzard",
            "thunderstorm",
            "windy",
            "hail",
            "fog",
            "foggy",
        ],
        "check the weather",
    ),
    (&["news", "headlines"], "read the news"),
    (
        &[
            "traffic",
            "commute",
            "roadworks",
            "tailbacks",
            "congestion",
            "gridlock",
            "jammed",
            "delays",
            "delayed",
            "lineup",
            "lineups",
        ],
        "check the traffic",
    ),
    (&["sunset", "sunrise", "sundown", "dawn", "dusk"], SUN_TIMES),
    (&["league", "playoffs", "standings"], "follow sports"),
    (
        &["nasdaq", "bitcoin", "crypto", "cryptocurrency"],
        "check prices or markets",
    ),
    (
        &["splitwise", "venmo", "paypal", "zelle", "cashapp"],
        "send or request money",
    ),
];

/// `line 1`, `route 66`, `platform 9`: a number that names a thing, not
/// an amount given.
static NAMED_BY_NUMBER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?i)\b(line|route|platform|bus|tram|gate|terminal)\s+\d+\b")
        .expect("a valid regex")
});

/// Goods whose price changes from day to day.
const COMMODITIES: &[&str] = &[
    "gold", "silver", "oil", "gas", "gasoline", "petrol", "diesel",
];

/// Stock market indices: one asked about with a word of now ("What is the
/// Sensex at right now?") asks for a live market.
const STOCK_INDICES: &[&str] = &[
    "sensex", "nifty", "dow", "nasdaq", "ftse", "dax", "cac", "nikkei", "seng", "asx", "tsx",
    "jse", "nzx", "kospi", "ibovespa",
];

/// Phrases that lead into a request without being part of it: "do one
/// thing, send a WhatsApp to…" (Indian English), "quick one", the "e" of
/// "e-transfer".
const LEAD_INS: &[&[&str]] = &[&["do", "one", "thing"], &["quick", "one"], &["e"]];

/// Currencies' codes and other names beside those of
/// [`crate::numbers::CURRENCIES`]: two currencies (or one beside
/// "exchange" or "rate") make a question about an exchange rate, which
/// changes every day.
const CURRENCY_CODES: &[&str] = &["sterling", "usd", "eur", "gbp", "jpy"];

/// Things to do that need another device or an account, by the verb a
/// request starts with.
const ACTIONS: &[(&[&str], &str)] = &[
    (&["play", "stream"], "play music"),
    (
        &["call", "phone", "dial", "ring", "video", "facetime"],
        "make calls",
    ),
    (
        &[
            "text", "message", "email", "send", "whatsapp", "dm", "tweet", "post", "upload",
        ],
        "send messages",
    ),
    (&["remind", "wake"], "set timers or alarms"),
    (
        &[
            "turn", "switch", "dim", "lock", "unlock", "open", "close", "start", "activate",
            "preheat",
        ],
        "control devices",
    ),
    (
        &[
            "order", "reorder", "buy", "purchase", "book", "reserve", "request", "hail",
        ],
        "order or book things",
    ),
    (&["navigate"], "give directions"),
    (
        &["transfer", "wire", "withdraw", "deposit", "remit"],
        "send or request money",
    ),
];

/// Whether `word` begins a request for one of the [`ACTIONS`].
fn is_an_action(word: &str) -> bool {
    ACTIONS.iter().any(|(verbs, _)| verbs.contains(&word))
}

/// Words said before a request's verb that only call for attention or
/// open it ("chur play some Six60", "oya play Burna Boy", "eish call my
/// mother"), in the dialects people speak to it in; a noun before a verb
/// ("kids play football …") is no request.
const INTERJECTIONS: &[&str] = &[
    "chur", "oya", "eish", "yebo", "sawa", "sasa", "lah", "boss", "okay", "ok", "um", "uh", "so",
    "hey", "oi", "yo", "right", "alright", "mate", "bro", "aiyo", "aiya", "haiya", "wah", "ey",
    "eh", "ah", "oh",
];

/// Things in a home that a request may set ("set the thermostat to 21").
const DEVICES: &[&str] = &[
    "thermostat",
    "heating",
    "heater",
    "lights",
    "light",
    "fan",
    "tv",
    "television",
    "oven",
    "dishwasher",
    "washer",
    "dryer",
    "blinds",
    "ac",
    "aircon",
];

/// Words that, beside a bank account, ask what is in it or what went
/// through it.
const MONEY_MOVED: &[&str] = &[
    "balance",
    "left",
    "overdrawn",
    "overdraft",
    "money",
    "cleared",
    "clear",
    "payment",
    "deposit",
    "deposited",
    "transfer",
    "transferred",
];

/// Words before the verb of a polite request.
const POLITE: &[&str] = &[
    "please", "pls", "plz", "kindly", "abeg", "biko", "can", "could", "would", "will", "you",
    "hey", "loopd", "i", "want", "need", "to",
];

/// Mobile money and payment apps: accounts, like a bank's.
const MONEY_APPS: &[&str] = &[
    "momo", "mpesa", "gcash", "paymaya", "paypal", "venmo", "paytm", "upi", "zelle", "revolut",
];

/// Words that, after "check", ask about the user's own claims, payments,
/// transfers and orders, which are kept in accounts this device cannot see.
const IN_AN_ACCOUNT: &[&str] = &[
    "paid",
    "payment",
    "claim",
    "refund",
    "refunded",
    "delivered",
    "delivery",
    "package",
    "parcel",
    "order",
    "shipped",
    "arrived",
    "status",
    "sent",
    "entered",
    "received",
    "credited",
    "reflected",
    "landed",
    "momo",
    "mpesa",
];

/// Words that make a score a sports result.
const SPORTS: &[&str] = &[
    "game",
    "match",
    "team",
    "football",
    "soccer",
    "basketball",
    "baseball",
    "hockey",
    "tennis",
    "cricket",
    "rugby",
];

/// Words that make "temperature" a question about the weather, not a
/// conversion.
const NOW_OUTSIDE: &[&str] = &["outside", "today", "tomorrow", "now", "tonight", "weekend"];

/// What to wear against the weather, and how it feels outside: beside a
/// word of [`NOW_OUTSIDE`] or a day's name, a question about today's weather ("Do I need a
/// jacket today?", "Is it cold outside?").
const DRESSED_OR_FELT: &[&str] = &[
    "jacket",
    "coat",
    "sweater",
    "scarf",
    "gloves",
    "sunscreen",
    "cold",
    "hot",
    "warm",
    "chilly",
    "windy",
    "freezing",
    "humid",
    "dry",
    "wet",
];

/// The tools of the `limits` toolbox: `unavailable`.
pub fn tools() -> Vec<Arc<dyn Tool>> {
    vec![typed_tool(
        "unavailable",
        "For requests that need the internet, an account or another device, which this \
         assistant does not have: the weather, news, traffic, sports scores, music, calls, \
         messages, timers, alarms, lights and appliances, shopping. Gives the answer to say.",
        unavailable,
    )]
}

/// Arguments of `unavailable`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnavailableArgs {
    /// What was asked, in words.
    #[schemars(extend("x-question" = true))]
    pub request: String,
}

/// Result of `unavailable`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct UnavailableOutput {
    /// The answer to say.
    pub answer: String,
}

/// Most words of a request to the device; a longer text with numbers is
/// a problem in words that mentions the weather or traffic, not a request.
const MAX_REQUEST_WORDS: usize = 20;

/// The refusal for a request that needs what this device lacks.
pub fn unavailable(args: UnavailableArgs) -> Result<UnavailableOutput, ToolError> {
    let long = args.request.split_whitespace().count() > MAX_REQUEST_WORDS;
    let in_digits = crate::numbers::in_digits(&args.request);
    let in_digits = NAMED_BY_NUMBER.replace_all(&in_digits, "$1");
    let given = in_digits
        .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .filter(|n| n.chars().any(|c| c.is_ascii_digit()))
        .count();
    let numbers = given > 0;
    if long && numbers {
        return Err(ToolError::Failed(
            "this is a problem in words, not a request for what this device lacks: work it \
             out with the other tools"
                .into(),
        ));
    }
    let lower = args.request.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let has = |w: &str| words.contains(&w);
    let led_in = LEAD_INS
        .iter()
        .find(|lead| words.starts_with(lead))
        .map_or(0, |lead| lead.len());
    let led_in = led_in.max(told_before_asking(&lower, &words));
    let mut asking = words[led_in..].iter().filter(|w| !POLITE.contains(w));
    let verb = asking.next().copied().unwrap_or("");
    let verb = match asking.next() {
        Some(next) if is_an_action(next) && INTERJECTIONS.contains(&verb) => next,
        _ => verb,
    };
    let now_outside =
        NOW_OUTSIDE.iter().any(|w| has(w)) || words.iter().any(|w| super::when::is_day_name(w));
    let storm = [
        "typhoon",
        "hurricane",
        "cyclone",
        "storm",
        "tornado",
        "monsoon",
        "flood",
        "flooding",
    ]
    .iter()
    .any(|w| has(w));
    let weather_now = now_outside
        && (has("temperature") || storm || (!numbers && DRESSED_OR_FELT.iter().any(|w| has(w))));
    let timer = verb == "set" && ["timer", "alarm", "reminder"].iter().any(|w| has(w));
    let uv_index = has("uv") && !has("rays");
    let sea_now = now_outside
        && [
            "surf", "swell", "waves", "tide", "tides", "wind", "winds", "gusts", "radar",
        ]
        .iter()
        .any(|w| has(w));
    let a_road_named = words.iter().any(|w| {
        let w = w.replace('-', "");
        w.len() >= 2
            && w.starts_with(['m', 'a', 'i', 'n'])
            && w[1..].bytes().all(|b| b.is_ascii_digit())
    });
    let backed_up = has("backed")
        && has("up")
        && (has("road")
            || has("motorway")
            || has("now")
            || has("morning")
            || has("tonight")
            || has("today")
            || a_road_named);
    let road_shut = ["road", "highway", "motorway", "freeway", "pass", "bridge"]
        .iter()
        .any(|w| has(w))
        && ["open", "closed", "shut", "flooded", "flooding"]
            .iter()
            .any(|w| has(w))
        && ["now", "currently", "today", "tonight", "morning"]
            .iter()
            .any(|w| has(w));
    let jammed = words.windows(2).any(|w| w == ["go", "slow"]) || has("jam");
    let held_up = jammed && (has("now") || has("currently") || has("bridge") || has("road"));
    let an_app = has("app") && matches!(verb, "check" | "open" | "look" | "see");
    let device = verb == "set" && DEVICES.iter().any(|w| has(w));
    let a_result_alone = [
        "score", "scores", "scored", "won", "win", "winning", "result", "beat", "final",
    ]
    .iter()
    .any(|w| has(w));
    // "losing track", "leading up to": a result only beside a sport.
    let result = a_result_alone || has("losing") || has("leading");
    let live = ["now", "currently", "live", "tonight", "today", "yet"]
        .iter()
        .any(|w| has(w));
    let just_played = has("yesterday")
        || (has("last") && (has("night") || has("week") || has("weekend")))
        || has("weekend")
        || words
            .windows(2)
            .any(|w| w[0] == "on" && super::when::is_day_name(w[1]));
    let in_history = has("year")
        || (has("when") && (has("did") || has("was")))
        || ["ever", "career", "history", "championships", "titles"]
            .iter()
            .any(|w| has(w))
        || in_digits
            .split(|c: char| !c.is_ascii_digit())
            .any(|n| n.len() == 4 && n.parse::<u32>().is_ok_and(|y| (1000..2100).contains(&y)));
    let sports = (live || (result && !in_history)) && SPORTS.iter().any(|w| has(w))
        || (a_result_alone && (live || just_played));
    let queue = (has("queue") || has("queues")) && live;
    let draw = ["lottery", "lotto", "powerball", "toto", "4d", "draw"]
        .iter()
        .any(|w| has(w))
        && ["result", "results", "numbers", "winning", "jackpot"]
            .iter()
            .any(|w| has(w));
    let power_cut =
        (has("shedding") || has("outage") || has("outages") || (has("power") && has("cut")))
            && (live || has("stage") || has("schedule"));
    let bank = has("bank")
        || has("account")
        || has("overdraft")
        || words.iter().any(|w| w.ends_with("card") || *w == "wallet")
        || MONEY_APPS.iter().any(|w| has(w));
    let asks_what_is_in = verb == "check" || (has("how") && has("much") && has("in"));
    let account = !numbers && bank && (asks_what_is_in || MONEY_MOVED.iter().any(|w| has(w)));
    let money_moved = matches!(verb, "move" | "pay" | "transfer") && bank && has("my");
    let own_records = verb == "check" && IN_AN_ACCOUNT.iter().any(|w| has(w));
    let vehicle = [
        "train",
        "trains",
        "bus",
        "buses",
        "flight",
        "flights",
        "ferry",
        "tram",
        "trams",
        "streetcar",
        "subway",
    ]
    .iter()
    .any(|w| has(w));
    let schedule = [
        "times",
        "schedule",
        "timetable",
        "delayed",
        "departures",
        "running",
        "late",
    ]
    .iter()
    .any(|w| has(w));
    let next_one = has("next")
        && [
            "coming", "come", "arrive", "arriving", "due", "leave", "leaving",
        ]
        .iter()
        .any(|w| has(w));
    let a_line_now = has("line") && live && schedule;
    let travel = (vehicle || a_line_now) && ((!numbers && schedule) || next_one);
    let after_verb = words[led_in..]
        .iter()
        .skip_while(|w| POLITE.contains(w))
        .nth(1)
        .copied();
    let tell_them = words
        .windows(3)
        .any(|w| w[0] == "and" && w[1] == "tell" && matches!(w[2], "him" | "her" | "them"));
    let tells_what = matches!(
        after_verb,
        Some(
            "me" | "us"
                | "what"
                | "whats"
                | "which"
                | "who"
                | "whose"
                | "where"
                | "when"
                | "how"
                | "why"
                | "if"
                | "whether"
        ) | None
    );
    let message_to = tell_them || (verb == "tell" && !tells_what);
    let places = !numbers
        && (has("nearby")
            || has("nearest")
            || has("restaurant")
            || has("restaurants")
            || (has("near") && has("me")));
    let a_cart = has("basket") || has("cart") || has("trolley");
    let filled = [
        "add", "put", "remove", "take", "order", "checkout", "my", "our",
    ]
    .iter()
    .any(|w| has(w));
    let shopping =
        (has("shopping") && (has("order") || has("list") || has("basket"))) || (a_cart && filled);
    let plans = words.iter().enumerate().any(|(i, w)| {
        super::calendar::PERSONAL.contains(w)
            && (words[i.saturating_sub(3)..i]
                .iter()
                .any(|w| matches!(*w, "my" | "our"))
                || (has("i") && (has("have") || has("got"))))
    });
    let asked: Vec<&str> = words
        .iter()
        .skip_while(|w| POLITE.contains(w) || matches!(**w, "um" | "uh" | "ok" | "okay" | "so"))
        .copied()
        .collect();
    let asks_how_much = matches!(
        asked.as_slice(),
        ["how", "much", "is" | "are" | "does" | "do" | "would", ..]
    ) && !has("time");
    let going_for = words.windows(2).any(|w| w == ["going", "for"]);
    let priced = has("price")
        || has("prices")
        || has("auction")
        || has("auctions")
        || has("cost")
        || has("trading")
        || going_for
        || asks_how_much;
    // "a 10 kg bag of maize meal": one number, the size of what is priced.
    let a_size_only = given == 1
        && in_digits
            .trim_start_matches(|c: char| !c.is_ascii_digit())
            .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',')
            .split_whitespace()
            .next()
            .is_some_and(|unit| {
                crate::math::is_unit(unit.trim_matches(|c: char| !c.is_alphanumeric()))
            });
    let live_price = (!numbers || (asks_how_much && a_size_only))
        && priced
        && ([
            "today",
            "now",
            "current",
            "currently",
            "latest",
            "moment",
            "morning",
        ]
        .iter()
        .any(|w| has(w))
            || COMMODITIES.iter().any(|w| has(w)));
    let markets = ["stock", "stocks", "shares"].iter().any(|w| has(w))
        && (!numbers || priced)
        && (priced
            || ["market", "doing", "worth", "up", "down"]
                .iter()
                .any(|w| has(w)));
    let an_index_now = STOCK_INDICES.iter().any(|w| has(w))
        && (live
            || ["at", "doing", "up", "down", "close", "closed", "level"]
                .iter()
                .any(|w| has(w)));
    let mut currencies: Vec<&str> = words
        .iter()
        .filter_map(|w| crate::numbers::money_named(w).map(|c| c.one))
        .chain(CURRENCY_CODES.iter().copied().filter(|code| has(code)))
        .collect();
    currencies.sort_unstable();
    currencies.dedup();
    let currencies = currencies.len();
    let rate_given = given >= 2;
    let exchange =
        !rate_given && (currencies >= 2 || (currencies == 1 && (has("exchange") || has("rate"))));
    let a_year_named = in_digits
        .split(|c: char| !c.is_ascii_digit())
        .any(|n| n.len() == 4 && n.parse::<u32>().is_ok_and(|y| (1000..2100).contains(&y)));
    let asks_when_it_was = words
        .windows(2)
        .any(|w| matches!(w[0], "what" | "which") && w[1] == "year")
        || (has("when") && (has("did") || has("was") || has("were")));
    let asks_a_time =
        has("when") || has("time") || has("today") || has("tomorrow") || has("tonight");
    let lacking = TOPICS
        .iter()
        .filter(|_| !a_year_named && !asks_when_it_was)
        .filter(|(_, what)| *what != SUN_TIMES || asks_a_time)
        .find(|(cues, _)| cues.iter().any(|cue| has(cue)))
        .or_else(|| {
            ACTIONS
                .iter()
                .find(|(verbs, _)| verbs.contains(&verb))
                .filter(|_| after_verb.is_some())
        })
        .map(|(_, what)| *what)
        .or((weather_now || uv_index || sea_now).then_some("check the weather"))
        .or((backed_up || held_up || road_shut).then_some("check the traffic"))
        .or(an_app.then_some("use other apps"))
        .or(timer.then_some("set timers or alarms"))
        .or(device.then_some("control devices"))
        .or(money_moved.then_some("send or request money"))
        .or(sports.then_some("follow sports"))
        .or(account.then_some("see your bank accounts"))
        .or(own_records.then_some("see your accounts, claims or orders"))
        .or(queue.then_some("see live queues"))
        .or(draw.then_some("check lottery results"))
        .or(power_cut.then_some("check power cuts"))
        .or(travel.then_some("look up travel times"))
        .or(message_to.then_some("send messages"))
        .or(exchange.then_some("check exchange rates"))
        .or((live_price || markets || an_index_now).then_some("check prices or markets"))
        .or(places.then_some("look up places"))
        .or(shopping.then_some("order or book things"))
        .or(plans.then_some("read your calendar"));
    match lacking {
        Some(what) => Ok(UnavailableOutput {
            answer: format!(
                "Sorry, I can't {what}: I run offline on this device, with no internet and \
                 no other devices."
            ),
        }),
        None => Err(ToolError::Failed(format!(
            "`{}` needs nothing this device lacks: answer it from what you know, or use \
             another tool",
            args.request.trim()
        ))),
    }
}

/// How many of `words` (those of `lower`) are sentences told before the
/// one asked, when the last sentence is a question with a question word
/// ("Phone batteries are all lithium-ion. What's the symbol for
/// lithium?"): a request's verb is looked for in the asking sentence.
fn told_before_asking(lower: &str, words: &[&str]) -> usize {
    let body = lower.trim_end();
    let Some(asked) = body.strip_suffix('?') else {
        return 0;
    };
    let Some(at) = asked.rfind(['.', '!', '?']) else {
        return 0;
    };
    let asking: Vec<&str> = asked[at + 1..]
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let question_word = asking.first().is_some_and(|w| {
        matches!(
            *w,
            "what" | "whats" | "which" | "who" | "whose" | "where" | "when" | "why" | "how"
        )
    });
    match question_word {
        true => words.len() - asking.len(),
        false => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(request: &str) -> Result<String, ToolError> {
        unavailable(UnavailableArgs {
            request: request.into(),
        })
        .map(|o| o.answer)
    }

    #[test]
    fn requests_for_what_an_offline_device_lacks_are_refused() {
        for (request, what) in [
            ("What's the weather like today?", "check the weather"),
            ("Will it rain tomorrow?", "check the weather"),
            (
                "Are the boats out of Union Hall able to go out today? What's the wind like on the coast right now?",
                "check the weather",
            ),
            (
                "whats the radar showing over eau claire right now we got third crop cut and laying in the field",
                "check the weather",
            ),
            ("Do I need an umbrella today?", "check the weather"),
            ("Should I wear a jacket tomorrow?", "check the weather"),
            ("Is it cold outside?", "check the weather"),
            (
                "What's the temperature outside right now?",
                "check the weather",
            ),
            (
                "Abeg transfer ₦20,000 from my account to my cousin's GTBank account.",
                "send or request money",
            ),
            (
                "is there go slow on third mainland bridge right now i want to go to ikeja",
                "check the traffic",
            ),
            ("how much money is left on my metrocard", "see your bank accounts"),
            (
                "Can you check whether Medicare paid my cardiologist's claim yet?",
                "see your accounts, claims or orders",
            ),
            ("Play some jazz music.", "play music"),
            (
                "chur can you play some six sixty on the speaker while we do the mahi",
                "play music",
            ),
            ("oya play burna boy new album make i hear am", "play music"),
            ("Set a timer for 10 minutes.", "set timers or alarms"),
            ("Turn off the living room lights.", "control devices"),
            ("Start the dishwasher.", "control devices"),
            ("Set the thermostat to 21 degrees.", "control devices"),
            ("Call my mom.", "make calls"),
            ("Send a text to John saying I'm late.", "send messages"),
            (
                "do one thing send a whatsapp to my distributor for ten boxes of dolo six fifty",
                "send messages",
            ),
            ("What is the Sensex at right now?", "check prices or markets"),
            (
                "check if the three hundred cedis my customer sent has entered my momo",
                "see your accounts, claims or orders",
            ),
            ("What's my GCash balance?", "see your bank accounts"),
            (
                "Move TT$500 out of my Republic Bank chequing into my brother Ravi's account.",
                "send or request money",
            ),
            (
                "Check how much is in my Scotiabank chequing account.",
                "see your bank accounts",
            ),
            (
                "how much have i got in my savings account",
                "see your bank accounts",
            ),
            ("um did the sens beat the habs tonight whats the final", "follow sports"),
            (
                "e transfer two hundred bucks to my sister for the hockey pool",
                "send or request money",
            ),
            (
                "Are the school buses cancelled tomorrow morning because of the snowstorm in Ottawa?",
                "check the weather",
            ),
            (
                "What did feeder calves bring at the Amarillo livestock auction this morning?",
                "check prices or markets",
            ),
            (
                "hows the surf at sumner right now is it worth taking the kids down with their togs",
                "check the weather",
            ),
            ("how's the ftse doing today", "check prices or markets"),
            ("Order me a pizza.", "order or book things"),
            (
                "Is there a typhoon signal in Quezon City right now? Will classes be suspended tomorrow?",
                "check the weather",
            ),
            (
                "is line one running right now or is there a delay at bloor",
                "look up travel times",
            ),
            ("Find a good Italian restaurant nearby.", "look up places"),
            ("How is Tesla stock doing?", "check prices or markets"),
            ("What's the price of gold today?", "check prices or markets"),
            (
                "How much is a 10 kg bag of Iwisa maize meal at Shoprite today?",
                "check prices or markets",
            ),
            (
                "How much does gas cost right now?",
                "check prices or markets",
            ),
            ("What's on my calendar today?", "read your calendar"),
            ("Do I have any meetings tomorrow?", "read your calendar"),
            ("When is my next dentist appointment?", "read your calendar"),
            (
                "Is there going to be frost tonight? Should I cover the tomatoes?",
                "check the weather",
            ),
            ("Video call our grandson in Toronto.", "make calls"),
            (
                "Hey, add the electricity bill to Splitwise and request the money from my flatmates.",
                "send or request money",
            ),
            ("What's the pollen count like today?", "check the weather"),
            (
                "Could you look up tomorrow's train times to Boston?",
                "look up travel times",
            ),
            (
                "Is the bus running late this morning?",
                "look up travel times",
            ),
            (
                "Hey, WhatsApp Maria and tell her I'll be there in ten minutes.",
                "send messages",
            ),
            (
                "Hey, what's App Maria and tell her I'll be there in 10 minutes?",
                "send messages",
            ),
            ("Tell John dinner is ready.", "send messages"),
            ("are there any roadworks on the a34 this morning", "check the traffic"),
            (
                "Is the 28 tram running on time right now? Any delays at Martim Moniz?",
                "check the traffic",
            ),
            (
                "hows the lineup at the emerson border crossing right now",
                "check the traffic",
            ),
            (
                "have celtic scored yet theyre playing aberdeen the night",
                "follow sports",
            ),
            (
                "Is the M1 backed up at Sprucefield this morning? I've to get to Lisburn for ten.",
                "check the traffic",
            ),
            (
                "is the great northern highway open past newman right now or is it flooded",
                "check the traffic",
            ),
            (
                "Pay the $500 Synergy bill out of my Commonwealth account, will ya?",
                "send or request money",
            ),
            ("whats diesel going for at the nearest petrol station", "check prices or markets"),
            (
                "add fish fingers and apple juice to my online shopping order",
                "order or book things",
            ),
            (
                "Is it going to be dry enough on Thursday to paint the outside of a house?",
                "check the weather",
            ),
            (
                "Post the photo of my apple pie to Facebook.",
                "send messages",
            ),
            (
                "Reorder the cat food we bought last month.",
                "order or book things",
            ),
            (
                "Who's winning the tennis match at Wimbledon right now?",
                "follow sports",
            ),
            ("Is there a football game on tonight?", "follow sports"),
            ("When is sunset today?", "tell sunrise or sunset times"),
            (
                "What's the stock price of Apple?",
                "check prices or markets",
            ),
            (
                "How much is a euro in dollars right now?",
                "check exchange rates",
            ),
            (
                "What's the exchange rate for the yen?",
                "check exchange rates",
            ),
            (
                "hey how much is a hire car in malaga for a week right now",
                "check prices or markets",
            ),
            (
                "How much is strong white bread flour at the supermarket today?",
                "check prices or markets",
            ),
            ("What's the UV index today?", "check the weather"),
            (
                "Is the M62 backed up right now? I'm about to set off for school.",
                "check the traffic",
            ),
            (
                "Check the rota app - did Maria swap her Saturday shift?",
                "use other apps",
            ),
            (
                "um how much have we got left in our nationwide account",
                "see your bank accounts",
            ),
            (
                "What's the balance on my business bank account?",
                "see your bank accounts",
            ),
            (
                "whats the queue like at portsmouth ferry port right now",
                "see live queues",
            ),
            ("hey what are the cowboys winning by right now", "follow sports"),
            ("Did the Braves win last night?", "follow sports"),
            ("did rangers win on saturday", "follow sports"),
            ("Can you check the 4D results for tonight's draw?", "check lottery results"),
            ("what stage of load shedding are we on right now", "check power cuts"),
            (
                "Check if the PIE is jammed right now, I need to drive to the wholesale market.",
                "check the traffic",
            ),
            ("um is the blue line running late right now", "look up travel times"),
            ("who won the derby at the weekend", "follow sports"),
            (
                "um whats gas going for at the quiktrip on moreland avenue right now",
                "check prices or markets",
            ),
            (
                "Request a ride for my daughter from school to her grandma's house.",
                "order or book things",
            ),
            (
                "how much money is in our checking account right now",
                "see your bank accounts",
            ),
            (
                "Has the payment from Friday's job cleared into my account yet?",
                "see your bank accounts",
            ),
            (
                "When's the next 504 streetcar coming to my stop?",
                "look up travel times",
            ),
        ] {
            let answer = ask(request).unwrap();
            assert!(
                answer.starts_with(&format!("Sorry, I can't {what}")),
                "{request}: {answer}"
            );
        }
    }

    #[test]
    fn other_requests_are_not_refused() {
        for request in [
            "kids play football three times a week for an hour how many hours is that",
            "Phone batteries these days are all lithium-ion. What's the chemical symbol for lithium?",
            "What is 70 degrees Fahrenheit in Celsius?",
            "What was the name of the hurricane that dumped all that rain on Houston back in 2017?",
            "quick one juneteenth is when the news about freedom got read out in galveston what year was that",
            "Check whether 91 is a prime number.",
            "hey if a dollar is about a hundred and fifty yen how many dollars is twelve thousand yen",
            "How much time is left today?",
            "My son's asking which gas in the upper atmosphere shields us from the sun's UV rays.",
            "What time is it in Tokyo?",
            "Who invented the telephone?",
            "Which NBA team did Michael Jordan win his six championships with? The guys at the court are arguing again.",
            "Simbang Gabi starts on December 16 this year. How many dawn masses are there in the whole novena?",
            "If I buy 3 coffees at 4.50 each, how much do I pay?",
            "How do I set the table?",
            "How do I start a sourdough starter?",
            "Set x to 5 and double it.",
            "My test scores were 88, 92 and 79. What's my average?",
            "What's the capital of France?",
            "If a 40 dollar shirt is 25 percent off, what does it cost?",
            "How many pounds is 10 kilograms?",
            "A pack of 6 sodas costs 4.20. How much is each soda?",
            "What's the price of 3 apples at 50 cents each?",
            "How much does 12 gallons of gas cost at 3.50 a gallon?",
            "How many cups of stock go into a risotto?",
            "Four friends split a 96 dollar restaurant bill. How much does each pay?",
            "What day of the week is it on the calendar?",
            "Is it cold in Antarctica?",
            "Which country hosted the 2014 FIFA World Cup?",
            "erm what year did england win the world cup the football one",
            "When did Brazil last win the World Cup?",
            "I had 900 in my account and spent 340. How much is left?",
            "How many players are on a soccer team?",
            "Tell me a joke.",
            "what's the difference between a typhoon and a hurricane",
            "book",
            "who wrote the book things fall apart",
            "Doing a stock count at work, what's 1,248 minus 379?",
            "Who won the World Cup in 1966?",
            "Which county won their first ever All-Ireland Senior Football title in 2002?",
            "Who won the World Cup last year?",
            "I'm going for a run, how far is 5 km in miles?",
            "How many people live in Toronto?",
            "Hey, can you tell me what nine hundred minus four hundred is?",
            "Can you tell me who wrote The Great Gatsby?",
            "Tell us a story about a dragon.",
            "Kindly tell, which is the largest state of India by area?",
            "kindly tell what is seventeen thousand four hundred plus twenty six thousand nine hundred and fifty",
            "What does the Dow Jones measure?",
            "leo gets four dollars pocket money a week how many weeks until he can buy a thirty dollar dinosaur kit",
            "Which month are we in? I need to turn the calendar page.",
            "How long should I let the frosting set?",
            "A train leaves at 3 pm and travels 2 times as far as the bus. How far does it go?",
            "How long does a hot dog take to grill?",
            "Between band meetings and the cart I losing track. Which day of the week we reach today?",
            "If it is 5 degrees colder today than the 20 degrees of yesterday, how cold is it now?",
            "John drives for 3 hours at 60 mph, then spends 2 hours in standstill traffic on \
             his way home and 1 more hour at 30 mph. How far is he from home?",
        ] {
            assert!(ask(request).is_err(), "{request}");
        }
    }
}
