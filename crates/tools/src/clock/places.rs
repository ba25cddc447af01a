//! Places the clock knows the timezone of: cities and countries by name,
//! the gazetteer of large cities, and finding the place a question names.

use super::zone::{without_accents, Named};

/// Large cities whose timezone is named after another city, countries
/// with one timezone, states and provinces, and holiday islands and
/// regions.
pub(super) const CITIES: &[(&str, &str)] = &[
    ("Mumbai", "Asia/Kolkata"),
    ("Bombay", "Asia/Kolkata"),
    ("Delhi", "Asia/Kolkata"),
    ("New Delhi", "Asia/Kolkata"),
    ("Bangalore", "Asia/Kolkata"),
    ("Bengaluru", "Asia/Kolkata"),
    ("Chennai", "Asia/Kolkata"),
    ("Hyderabad", "Asia/Kolkata"),
    ("India", "Asia/Kolkata"),
    ("Beijing", "Asia/Shanghai"),
    ("China", "Asia/Shanghai"),
    ("Osaka", "Asia/Tokyo"),
    ("Kyoto", "Asia/Tokyo"),
    ("Japan", "Asia/Tokyo"),
    ("Washington", "America/New_York"),
    ("Boston", "America/New_York"),
    ("Miami", "America/New_York"),
    ("Atlanta", "America/New_York"),
    ("Philadelphia", "America/New_York"),
    ("San Francisco", "America/Los_Angeles"),
    ("Seattle", "America/Los_Angeles"),
    ("San Diego", "America/Los_Angeles"),
    ("Las Vegas", "America/Los_Angeles"),
    ("Houston", "America/Chicago"),
    ("Dallas", "America/Chicago"),
    ("Austin", "America/Chicago"),
    ("Montreal", "America/Toronto"),
    ("Ottawa", "America/Toronto"),
    ("Rio de Janeiro", "America/Sao_Paulo"),
    ("Brazil", "America/Sao_Paulo"),
    ("Barcelona", "Europe/Madrid"),
    ("Spain", "Europe/Madrid"),
    ("Munich", "Europe/Berlin"),
    ("Frankfurt", "Europe/Berlin"),
    ("Hamburg", "Europe/Berlin"),
    ("Germany", "Europe/Berlin"),
    ("France", "Europe/Paris"),
    ("Italy", "Europe/Rome"),
    ("Milan", "Europe/Rome"),
    ("Edinburgh", "Europe/London"),
    ("Manchester", "Europe/London"),
    ("England", "Europe/London"),
    ("UK", "Europe/London"),
    ("Geneva", "Europe/Zurich"),
    ("St Petersburg", "Europe/Moscow"),
    ("Russia", "Europe/Moscow"),
    ("Abu Dhabi", "Asia/Dubai"),
    ("Cape Town", "Africa/Johannesburg"),
    ("Melbourne", "Australia/Melbourne"),
    ("Canberra", "Australia/Sydney"),
    ("Wellington", "Pacific/Auckland"),
    ("New Zealand", "Pacific/Auckland"),
    ("Hanoi", "Asia/Bangkok"),
    ("Thailand", "Asia/Bangkok"),
    ("Korea", "Asia/Seoul"),
    ("Taipei", "Asia/Taipei"),
    ("Manila", "Asia/Manila"),
    ("Rio", "America/Sao_Paulo"),
    ("Krakow", "Europe/Warsaw"),
    ("Kraków", "Europe/Warsaw"),
    ("Calgary", "America/Edmonton"),
    ("Quebec", "America/Toronto"),
    ("Glasgow", "Europe/London"),
    ("Liverpool", "Europe/London"),
    ("Birmingham", "Europe/London"),
    ("Scotland", "Europe/London"),
    ("Wales", "Europe/London"),
    ("Venice", "Europe/Rome"),
    ("Florence", "Europe/Rome"),
    ("Naples", "Europe/Rome"),
    ("Lyon", "Europe/Paris"),
    ("Marseille", "Europe/Paris"),
    ("Porto", "Europe/Lisbon"),
    ("Portugal", "Europe/Lisbon"),
    ("Seville", "Europe/Madrid"),
    ("Valencia", "Europe/Madrid"),
    ("Cologne", "Europe/Berlin"),
    ("Salzburg", "Europe/Vienna"),
    ("Austria", "Europe/Vienna"),
    ("Poland", "Europe/Warsaw"),
    ("Greece", "Europe/Athens"),
    ("Turkey", "Europe/Istanbul"),
    ("Ireland", "Europe/Dublin"),
    ("Netherlands", "Europe/Amsterdam"),
    ("Holland", "Europe/Amsterdam"),
    ("Belgium", "Europe/Brussels"),
    ("Switzerland", "Europe/Zurich"),
    ("Sweden", "Europe/Stockholm"),
    ("Norway", "Europe/Oslo"),
    ("Denmark", "Europe/Copenhagen"),
    ("Finland", "Europe/Helsinki"),
    ("Iceland", "Atlantic/Reykjavik"),
    ("Durban", "Africa/Johannesburg"),
    ("South Africa", "Africa/Johannesburg"),
    ("Kenya", "Africa/Nairobi"),
    ("Nigeria", "Africa/Lagos"),
    ("Egypt", "Africa/Cairo"),
    ("Morocco", "Africa/Casablanca"),
    ("Ghana", "Africa/Accra"),
    ("Orlando", "America/New_York"),
    ("New Orleans", "America/Chicago"),
    ("Portland", "America/Los_Angeles"),
    // States and provinces, by their most populous zone: "Portland, Maine"
    // is read as its last place.
    ("Alabama", "America/Chicago"),
    ("Alaska", "America/Anchorage"),
    ("Arizona", "America/Phoenix"),
    ("Arkansas", "America/Chicago"),
    ("California", "America/Los_Angeles"),
    ("Colorado", "America/Denver"),
    ("Connecticut", "America/New_York"),
    ("Delaware", "America/New_York"),
    ("Florida", "America/New_York"),
    ("Idaho", "America/Boise"),
    ("Illinois", "America/Chicago"),
    ("Indiana", "America/Indiana/Indianapolis"),
    ("Iowa", "America/Chicago"),
    ("Kansas", "America/Chicago"),
    ("Kentucky", "America/New_York"),
    ("Louisiana", "America/Chicago"),
    ("Maine", "America/New_York"),
    ("Maryland", "America/New_York"),
    ("Massachusetts", "America/New_York"),
    ("Michigan", "America/Detroit"),
    ("Minnesota", "America/Chicago"),
    ("Mississippi", "America/Chicago"),
    ("Missouri", "America/Chicago"),
    ("Montana", "America/Denver"),
    ("Nebraska", "America/Chicago"),
    ("Nevada", "America/Los_Angeles"),
    ("New Hampshire", "America/New_York"),
    ("New Jersey", "America/New_York"),
    ("New Mexico", "America/Denver"),
    ("North Carolina", "America/New_York"),
    ("North Dakota", "America/Chicago"),
    ("Ohio", "America/New_York"),
    ("Oklahoma", "America/Chicago"),
    ("Oregon", "America/Los_Angeles"),
    ("Pennsylvania", "America/New_York"),
    ("Rhode Island", "America/New_York"),
    ("South Carolina", "America/New_York"),
    ("South Dakota", "America/Chicago"),
    ("Tennessee", "America/Chicago"),
    ("Texas", "America/Chicago"),
    ("Utah", "America/Denver"),
    ("Vermont", "America/New_York"),
    ("Virginia", "America/New_York"),
    ("West Virginia", "America/New_York"),
    ("Wisconsin", "America/Chicago"),
    ("Wyoming", "America/Denver"),
    ("Ontario", "America/Toronto"),
    ("British Columbia", "America/Vancouver"),
    ("Alberta", "America/Edmonton"),
    ("Manitoba", "America/Winnipeg"),
    ("Saskatchewan", "America/Regina"),
    ("Nova Scotia", "America/Halifax"),
    ("New Brunswick", "America/Moncton"),
    ("Newfoundland", "America/St_Johns"),
    ("Prince Edward Island", "America/Halifax"),
    ("PEI", "America/Halifax"),
    ("Yukon", "America/Whitehorse"),
    ("Queensland", "Australia/Brisbane"),
    ("New South Wales", "Australia/Sydney"),
    ("Tasmania", "Australia/Hobart"),
    ("South Australia", "Australia/Adelaide"),
    ("Western Australia", "Australia/Perth"),
    ("Northern Territory", "Australia/Darwin"),
    ("Honolulu", "Pacific/Honolulu"),
    ("Bahamas", "America/Nassau"),
    ("Trinidad", "America/Port_of_Spain"),
    ("Trinidad and Tobago", "America/Port_of_Spain"),
    ("Tobago", "America/Port_of_Spain"),
    ("Cuba", "America/Havana"),
    ("Haiti", "America/Port-au-Prince"),
    ("Dominican Republic", "America/Santo_Domingo"),
    ("Cayman Islands", "America/Cayman"),
    ("Grand Cayman", "America/Cayman"),
    ("Hawaii", "Pacific/Honolulu"),
    ("Mexico", "America/Mexico_City"),
    ("Peru", "America/Lima"),
    ("Argentina", "America/Argentina/Buenos_Aires"),
    ("Buenos Aires", "America/Argentina/Buenos_Aires"),
    ("Chile", "America/Santiago"),
    ("Colombia", "America/Bogota"),
    ("Shenzhen", "Asia/Shanghai"),
    ("Guangzhou", "Asia/Shanghai"),
    ("Kolkata", "Asia/Kolkata"),
    ("Goa", "Asia/Kolkata"),
    ("Lahore", "Asia/Karachi"),
    ("Islamabad", "Asia/Karachi"),
    ("Pakistan", "Asia/Karachi"),
    ("Bangladesh", "Asia/Dhaka"),
    ("Nepal", "Asia/Kathmandu"),
    ("Sri Lanka", "Asia/Colombo"),
    ("Tel Aviv", "Asia/Jerusalem"),
    ("Israel", "Asia/Jerusalem"),
    ("UAE", "Asia/Dubai"),
    ("Saudi Arabia", "Asia/Riyadh"),
    ("Mecca", "Asia/Riyadh"),
    ("Vietnam", "Asia/Ho_Chi_Minh"),
    ("Saigon", "Asia/Ho_Chi_Minh"),
    ("Ho Chi Minh City", "Asia/Ho_Chi_Minh"),
    ("Indonesia", "Asia/Jakarta"),
    ("Bali", "Asia/Makassar"),
    ("Philippines", "Asia/Manila"),
    ("Malaysia", "Asia/Kuala_Lumpur"),
    ("Tenerife", "Atlantic/Canary"),
    ("Gran Canaria", "Atlantic/Canary"),
    ("Lanzarote", "Atlantic/Canary"),
    ("Fuerteventura", "Atlantic/Canary"),
    ("Canary Islands", "Atlantic/Canary"),
    ("Majorca", "Europe/Madrid"),
    ("Mallorca", "Europe/Madrid"),
    ("Ibiza", "Europe/Madrid"),
    ("Menorca", "Europe/Madrid"),
    ("Algarve", "Europe/Lisbon"),
    ("Faro", "Europe/Lisbon"),
    ("Crete", "Europe/Athens"),
    ("Corfu", "Europe/Athens"),
    ("Sicily", "Europe/Rome"),
    ("Sardinia", "Europe/Rome"),
    ("Corsica", "Europe/Paris"),
];

/// The cities of 200,000 people or more, and of 15,000 or more whose name
/// is no everyday word ("Alice Springs"), with their timezones (GeoNames,
/// made by `data/make-cities.py`), by [`gazetteer_key`]; of two cities of
/// one name, the first listed (the most populous). A city named with
/// `City` is found without it too ("Cebu"), unless another place has that
/// name.
static GAZETTEER: std::sync::LazyLock<std::collections::HashMap<String, Named>> =
    std::sync::LazyLock::new(|| {
        let mut cities = std::collections::HashMap::new();
        let rows = include_str!("../../data/cities.tsv")
            .lines()
            .filter(|line| !line.starts_with('#'))
            .filter_map(|line| {
                let (city, zone) = line.split_once('\t')?;
                Some((gazetteer_key(city), Named::get(zone)?))
            });
        let mut short = Vec::new();
        for (city, zone) in rows {
            if let Some(named) = city.strip_suffix(" city") {
                short.push((named.to_string(), zone));
            }
            cities.entry(city).or_insert(zone);
        }
        for (named, zone) in short {
            cities.entry(named).or_insert(zone);
        }
        cities
    });

/// The timezone of a city of the gazetteer, its name without accents.
pub(super) fn city_zone(name: &str) -> Option<Named> {
    GAZETTEER.get(&gazetteer_key(name)).copied()
}

/// A city's name as the gazetteer is searched by: lower case, without
/// stops or apostrophes, `saint` as `st` (`St. John's`, `st johns`,
/// `Saint John's` alike).
fn gazetteer_key(name: &str) -> String {
    let key: String = name
        .to_lowercase()
        .chars()
        .filter(|c| !matches!(c, '.' | '\'' | '’'))
        .collect();
    match key.strip_prefix("saint ") {
        Some(rest) => format!("st {rest}"),
        None => key,
    }
}

/// City names of timezones that are also everyday words: never taken as
/// a place when a question is searched for one.
const NOT_PLACES: &[&str] = &[
    "christmas",
    "wake",
    "east",
    "west",
    "north",
    "south",
    "general",
    "central",
    "eastern",
    "pacific",
    "mountain",
    "canary",
    "easter",
    "midway",
    "continental",
    "acre",
    "knox",
    "universal",
    "zulu",
    "navajo",
    "greenwich",
    "jersey",
    "stanley",
    "regina",
    "troll",
    "vatican",
    "samoa",
    "truk",
    "yap",
    "chuuk",
    "mahe",
    "nome",
    "thule",
    "marengo",
    "monticello",
    "vevay",
    "winamac",
    "petersburg",
    "center",
    "salem",
    "beulah",
    "metlakatla",
];

/// Words of [`NOT_PLACES`] that are other words too (a name, a garment)
/// but places after `in`, `to`, `from`, `by` and the like ("moved to
/// Regina").
const NAMES_OF_PLACES: &[&str] = &["regina", "stanley", "jersey"];

/// The last place named in `text` that is a city or country with a
/// timezone (`… aunt mei in kuala lumpur after dinner what time is it
/// there` → `kuala lumpur`), read without punctuation or capitals; a city
/// of the gazetteer only after `in`, `outside`, `near`, `around`, `to`,
/// `from` or `by` (`the tech line is in Stuttgart`, `retired out to
/// Alicante`), as some of their names are words too.
pub(super) fn place_named_in(text: &str) -> Option<String> {
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    for end in (1..=words.len()).rev() {
        for n in (1..=end.min(4)).rev() {
            let candidate = words[end - n..end].join(" ");
            let after_in = end > n
                && ["in", "outside", "near", "around", "to", "from", "by"]
                    .iter()
                    .any(|at| words[end - n - 1].eq_ignore_ascii_case(at));
            let a_name_for_a_place = NAMES_OF_PLACES.contains(&candidate.to_lowercase().as_str());
            if is_a_place(&candidate)
                || (after_in && (a_gazetteer_city(&candidate) || a_name_for_a_place))
            {
                return Some(candidate);
            }
        }
    }
    None
}

/// Whether `name` (any case) names a place the clock knows the timezone
/// of: a city or country of [`is_a_place`], or a city of the gazetteer
/// whose name is no everyday word.
pub fn knows_place(name: &str) -> bool {
    let name = name.trim();
    is_a_place(name) || a_gazetteer_city(name)
}

/// Whether `name` is a city of the gazetteer whose name is no everyday
/// word ([`NOT_PLACES`]).
fn a_gazetteer_city(name: &str) -> bool {
    name.len() >= 4
        && !NOT_PLACES.contains(&name.to_lowercase().as_str())
        && city_zone(&without_accents(name)).is_some()
}

/// Whether `name` is a city or country with a timezone: a known alias, or
/// the city of a zone in a continent's list (not one of [`NOT_PLACES`]).
fn is_a_place(name: &str) -> bool {
    let name = without_accents(name);
    let name = name.as_str();
    if name.len() < 3 || NOT_PLACES.contains(&name.to_lowercase().as_str()) {
        return false;
    }
    let city = name.replace(' ', "_");
    CITIES
        .iter()
        .any(|(alias, _)| alias.eq_ignore_ascii_case(name))
        || Named::all().any(|tz| {
            let zone = tz.name();
            let continent = zone.split('/').next().unwrap_or_default();
            matches!(
                continent,
                "Africa"
                    | "America"
                    | "Asia"
                    | "Atlantic"
                    | "Australia"
                    | "Europe"
                    | "Indian"
                    | "Pacific"
            ) && zone
                .rsplit('/')
                .next()
                .is_some_and(|last| last.eq_ignore_ascii_case(&city))
        })
}

/// How to name a place in an answer: as the user named it when the clock
/// knows it by that name (`Texas`, `Benidorm`, whose clocks are named
/// after Chicago and Madrid), else the city of its zone.
pub(super) fn place_said(named: &str, zone: &str) -> String {
    let plain = named
        .chars()
        .all(|c| c.is_alphabetic() || matches!(c, ' ' | '\'' | '-' | '.'));
    if !plain || !knows_place(named) {
        return city_of(zone);
    }
    if named.len() <= 3 {
        return named.to_uppercase();
    }
    named
        .split(' ')
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) if word.chars().all(|c| c.is_lowercase() || !c.is_alphabetic()) => {
                    first.to_uppercase().chain(chars).collect()
                }
                _ => word.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The city part of an IANA name: `America/New_York` → `New York`.
fn city_of(name: &str) -> String {
    name.rsplit('/').next().unwrap_or(name).replace('_', " ")
}
