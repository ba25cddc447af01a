//! Currencies as people write and say them: their signs and names, and
//! amounts signed by letters (`R3,795`, `K640`) named.

use super::prices::ABOUT_MONEY;
use regex::Regex;
use std::sync::LazyLock;

/// `R3,795`, `RM 25.90`, `K640`, `KSh 12,750`, `S/ 12.50`: an amount
/// after the sign of the rand, the ringgit, the kwacha, an East African
/// shilling or the Peruvian sol, which are letters.
static LETTER_SIGNED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(KSh|Ksh|KES|USh|TSh|R|RM|K|S/\.?)\s?(\d[\d,]*(?:\.\d+)?)\b")
        .expect("a valid regex")
});

/// Words of buying and selling that, beside [`ABOUT_MONEY`], make a `K`
/// before an amount the kwacha's sign (not `K9` the dog or `K2` the
/// mountain).
static TRADE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:sold|sell|selling|sales|bought|buy|rent|profit|charged|owe|owes|kwacha|how\s+much)\b",
    )
    .expect("a valid regex")
});

/// `GH₵`, `NZ$`, `US$`: a country's letters before a currency sign.
static COUNTRY_BEFORE_SIGN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&with_currencies(r"\b[A-Z]{1,3}([SIGNS])")).expect("a valid regex")
});

/// `text` with amounts signed by letters written as the amount and the
/// currency's name: `R3,795` → `3,795 rand`, `RM25` → `25 ringgit`,
/// `KSh 180` → `180 shillings`, `S/ 42` → `42 soles`,
/// `K640` → `640 kwacha` in a text about money (digits run into a letter
/// sign read as no number); a country's letters before a sign dropped
/// (`GH₵420` → `₵420`).
pub fn letter_signs_named(text: &str) -> String {
    let text = COUNTRY_BEFORE_SIGN.replace_all(text, "$1");
    let kwacha = ABOUT_MONEY.is_match(&text) || TRADE.is_match(&text);
    LETTER_SIGNED
        .replace_all(&text, |found: &regex::Captures| {
            let name = match &found[1] {
                "R" => "rand",
                "RM" => "ringgit",
                "KSh" | "Ksh" | "KES" | "USh" | "TSh" => "shillings",
                "S/" | "S/." => "soles",
                _ if kwacha => "kwacha",
                _ => return found[0].to_string(),
            };
            format!("{} {name}", &found[2])
        })
        .into_owned()
}

/// A currency as people say it: the signs written before an amount and
/// its names.
pub struct Currency {
    /// Signs written before an amount (`$`).
    pub signs: &'static [char],
    /// Its name for one (`dollar`).
    pub one: &'static str,
    /// Its name for more than one (`dollars`).
    pub many: &'static str,
    /// What else it is called (`bucks`).
    pub also: &'static [&'static str],
}

/// Names of currencies that are also other words: a pound is a weight,
/// "won" a verb, and "sol" the sun or a note.
const NOT_ONLY_MONEY: &[&str] = &["pound", "pounds", "won", "sol"];

const fn currency(
    signs: &'static [char],
    one: &'static str,
    many: &'static str,
    also: &'static [&'static str],
) -> Currency {
    Currency {
        signs,
        one,
        many,
        also,
    }
}

/// The currencies read in amounts. A text that names more than one is
/// taken to be about the first of them here.
pub const CURRENCIES: &[Currency] = &[
    currency(&['$'], "dollar", "dollars", &["bucks", "buck"]),
    currency(&['€'], "euro", "euros", &[]),
    currency(&['£'], "pound", "pounds", &["quid"]),
    currency(&['₹'], "rupee", "rupees", &[]),
    currency(&['₱'], "peso", "pesos", &[]),
    currency(&[], "shilling", "shillings", &["bob"]),
    currency(&[], "rand", "rand", &[]),
    currency(&[], "ringgit", "ringgit", &[]),
    currency(&['₦'], "naira", "naira", &[]),
    currency(&['¥'], "yen", "yen", &["yuan"]),
    currency(&['₩'], "won", "won", &[]),
    currency(&['₺'], "lira", "lira", &["liras"]),
    currency(&['₽'], "ruble", "rubles", &["rouble", "roubles"]),
    currency(&['₫'], "dong", "dong", &[]),
    currency(&['₪'], "shekel", "shekels", &[]),
    currency(&['₵'], "cedi", "cedis", &[]),
    currency(&['฿'], "baht", "baht", &[]),
    currency(&['৳'], "taka", "taka", &[]),
    currency(&[], "dirham", "dirhams", &[]),
    currency(&[], "riyal", "riyals", &[]),
    currency(&[], "franc", "francs", &[]),
    currency(&[], "kwacha", "kwacha", &[]),
    currency(&[], "sol", "soles", &[]),
];

/// The signs written before an amount of money: those of [`CURRENCIES`].
pub const CURRENCY_SIGNS: [char; 15] = [
    '$', '€', '£', '₹', '₱', '₦', '¥', '₩', '₺', '₽', '₫', '₪', '₵', '฿', '৳',
];

/// The currency `text` (any case) is about: the first of [`CURRENCIES`]
/// whose sign it holds or whose name it says as a word.
pub fn currency_of(text: &str) -> Option<&'static Currency> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    CURRENCIES.iter().find(|currency| {
        currency.signs.iter().any(|sign| lower.contains(*sign))
            || currency.names().any(|name| words.contains(&name))
    })
}

impl Currency {
    /// All its names: for one, for more, and the others.
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        [self.one, self.many]
            .into_iter()
            .chain(self.also.iter().copied())
    }

    /// Its name for `amount` as said (`1`: one dollar; else dollars).
    pub fn name_for(&self, amount: &str) -> &'static str {
        match amount {
            "1" => self.one,
            _ => self.many,
        }
    }
}

/// The currency that `word` (lower case) names and that means only money
/// (`naira`, `bucks`; not `pounds`, also a weight).
pub fn money_named(word: &str) -> Option<&'static Currency> {
    if NOT_ONLY_MONEY.contains(&word) {
        return None;
    }
    CURRENCIES
        .iter()
        .find(|c| c.names().any(|name| name == word))
}

/// The names of currencies that mean only money, as a regex alternation
/// (`dollars|dollar|bucks|…`), longest first.
static MONEY_NAMES: LazyLock<String> = LazyLock::new(|| {
    let mut names: Vec<&str> = CURRENCIES
        .iter()
        .flat_map(Currency::names)
        .filter(|name| !NOT_ONLY_MONEY.contains(name))
        .collect();
    names.sort_by_key(|name| std::cmp::Reverse(name.len()));
    names.dedup();
    names.join("|")
});

/// `pattern` with `SIGNS` written as the characters of [`CURRENCY_SIGNS`]
/// (for a character class, `[SIGNS]`) and `CURRENCIES` as the names of the
/// currencies that mean only money (for an alternation,
/// `(?:CURRENCIES)`): one list of each for every pattern that reads money.
pub fn with_currencies(pattern: &str) -> String {
    pattern
        .replace("SIGNS", &CURRENCY_SIGNS.iter().collect::<String>())
        .replace("CURRENCIES", &MONEY_NAMES)
}

/// Whether `word` (any case) names money (`dollars`, `euro`, `quid`), as
/// said after an amount.
pub fn is_currency(word: &str) -> bool {
    let word = word.to_lowercase();
    CURRENCIES
        .iter()
        .any(|c| c.names().any(|name| name == word))
        || word == "rs"
}
