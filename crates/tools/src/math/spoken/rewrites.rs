//! The word rewrites that turn what small models write into the
//! calculator's syntax (`17 times 23` → `17 * 23`), applied in order.

use regex::Regex;
use std::sync::LazyLock;

/// Word rewrites, applied in order (case-insensitive).
pub(super) static WORDS: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (
            r"(?i)^\s*(?:(?:u+m+|e+r+m*|u+h+|h+m+|righto|right|alright|so|like|okay|ok|hey|yo|well|now|wait|hang\s+on|gimme|give\s+me|tell\s+me|(?:a\s+)?quick\s+(?:one|question|sum))\b[\s,.:]*)+",
            "",
        ),
        (
            r"(?i)^\s*(?:(?:a\s+)?quick\s+(?:one|question|sum)|hey|ok(?:ay)?|so|right|um|uh|question|sige|sasa)\s*[:,.!-]?\s+((?:what|how)[a-z']*)",
            "$1",
        ),
        (r"(?i)\s+po\s*([.?!]?)\s*$", "$1"),
        // "What a 17 times 23": speech recognition's "what's".
        (
            r"(?i)^\s*(what\s+is|what's|whats|what\s+a|what\s+be|how\s+much\s+(?:is|be)|calculate|compute|work\s+out)\s+",
            "",
        ),
        (r"(?i)^\s*what\s+(-?\d)", "$1"),
        // "can you times 265 by 12 for me", "what do you get if you times
        // 574 by 19".
        (
            r"(?i)^[^\d]*?\b(?:times|multiply)\s+(\d+(?:\.\d+)?)\s+by\s+(\d+(?:\.\d+)?)(?:\s+for\s+me)?(?:\s+please)?\s*[?.!]?\s*$",
            "$1 * $2",
        ),
        // "we had 47 of our 60 rooms booked, what percent occupancy is that".
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:out\s+)?of\s+(?:our|the|my|their|his|her|all)?\s*(\d+(?:\.\d+)?)\b[^\d]*\bwhat\s+(?:%|percent(?:age)?)\b[^\d]*$",
            "($1)/($2)*100",
        ),
        // Notes and sums by their names: "a score plus a tenner plus three fivers".
        (r"(?i)\b(\d+)\s+fivers\b", "($1*5)"),
        (r"(?i)\b(\d+)\s+tenners\b", "($1*10)"),
        (r"(?i)\b(\d+)\s+twenties\b", "($1*20)"),
        (r"(?i)\b(\d+)\s+fifties\b", "($1*50)"),
        (r"(?i)\b(?:a|one)\s+fiver\b", "5"),
        (r"(?i)\b(?:a|one)\s+tenner\b", "10"),
        (r"(?i)\b(?:a|one)\s+score\s+(plus|and|minus|add)\b", "20 $1"),
        (r"(?i)\b(?:a|one)\s+pony\b", "25"),
        (r"(?i)\b(?:a|one)\s+monkey\b", "500"),
        // Pence written on the number: "151.9p".
        (r"(?i)\b(\d+(?:\.\d+)?)p\b", "$1"),
        // "gave me 60 for a 43.60 fare, how much change".
        (
            r"(?i)^[^\d(]*?\b(?:gave|paid|handed|give|pay)\s+(?:me\s+|him\s+|her\s+|them\s+)?(?:with\s+)?(?:a\s+)?[SIGNS]?(\d+(?:\.\d+)?|\(\d+\*\d+\))\s+(?:[a-z]+\s+){0,3}?(?:for|on)\s+(?:a\s+|the\s+|an\s+)?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*\bchange\b[^\d]*$",
            "$1 - $2",
        ),
        // "A pint is 5.80. How much for a round of 9?"
        (
            r"(?i)^\s*(?:an?|one|each)\s+[a-z0-9' -]+?\s+(?:is|costs?)\s+[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?\bhow\s+much\s+(?:is\s+it\s+|would\s+it\s+be\s+|will\s+it\s+be\s+)?for\s+(?:a|the|my)\s+(?:round|family|group|party|table|team|class|crew)\s+of\s+(\d+)\b[^\d]*$",
            "$2 * $1",
        ),
        (r"(?i)^\s*take\s+([SIGNS]?\d)", "$1"),
        (r"(?i)\bwith\s+the\s+(\d+(?:\.\d+)?\s*(?:%|percent))", "with $1"),
        // "the 8.875% NYC sales tax", "a 6% state tax".
        (
            r"(?i)(\d\s*(?:%|percent))\s+(?:(?-i:[A-Z]{2,5})|state|city|local|county)\s+((?:sales\s+)?tax|vat|gst|gct|hst|pst)\b",
            "$1 $2",
        ),
        // "Split $186.40 evenly 8 ways", "split 90 between the 3 of us",
        // "share out 5625 by 15 for me".
        (
            r"(?i)^[^\d]*?\b(?:split|divide|share)\s+(?:out\s+|up\s+)?[SIGNS]?(\d+(?:\.\d+)?)\s+(?:(?:up|evenly|equally)\s+)*(?:(\d+)\s+ways|(?:between|among|amongst|by|into)\s+(?:the\s+)?(\d+)(?:\s+[a-z]+){0,2})\b[^\d]*$",
            "$1 / $2$3",
        ),
        // "take 3846 away from 11000".
        (
            r"(?i)^\s*(?:take\s+)?[SIGNS]?(\d+(?:\.\d+)?)\s+away\s+from\s+[SIGNS]?(\d+(?:\.\d+)?)\s*[?.!]?\s*$",
            "$2 - $1",
        ),
        // "lunch came to 312 cedis for 4 of us, how much each person".
        (
            r"(?i)^[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?\bfor\s+(?:the\s+|all\s+)?(\d+)\s+of\s+us\b[^\d]*?\bhow\s+much\s+(?:is\s+(?:that|it)\s+|do\s+we\s+(?:pay|owe)\s+|does\s+)?(?:each|per\s+person|a\s+head|per\s+head|a\s+person|everyone|every\s+one)\b(?:\s+(?:person|one|pay|owe))?\s*[?.!]?\s*$",
            "$1 / $2",
        ),
        // "9600 divided up 32 ways", "8316 shared between 36".
        (
            r"(?i)^[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+){0,2}?(?:divided|split|shared)\s+(?:(?:up|out|evenly|equally)\s+)*(?:(?:by\s+|into\s+)?(\d+)\s+ways|(?:between|among|amongst)\s+(?:the\s+)?(\d+)(?:\s+[a-z]+){0,2})\b[^\d]*$",
            "$1 / $2$3",
        ),
        // "3 yards at 8200 a yard and she gave me 30000, how much change".
        (
            r"(?i)^.*?\b(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+){1,3}?(?:at|for)\s+[SIGNS]?(\d+(?:\.\d+)?)\s*(?:(?:CURRENCIES)\s+)?(?:a|an|per|each)\b[^\d]*?\b(?:gave|give|paid|pay|handed|hand)\b[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*\bchange\b[^\d]*$",
            "$3 - $1*$2",
        ),
        // "it came to 37.84 and I gave him a 100 dollar bill, how much change".
        (
            r"(?i)^[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?\b(?:gave|give|paid|pay|handed|hand)\b[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*\bchange\b[^\d]*$",
            "$2 - $1",
        ),
        // "rent is 950 a month and i make 2500 a month, what percent of my pay goes to rent".
        (
            r"(?i)^[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?\b(?:i|we)\s+(?:make|earn|take\s+home|bring\s+home|get\s+paid)\s+[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*\bwhat\s+(?:percent|percentage|%)\s+of\s+(?:my|our)\s+(?:pay|income|salary|wages?|paycheck|earnings)\b[^\d]*$",
            "$1/$2*100",
        ),
        // "fees are 185000 a term for each of my 2 children. I have paid 250000. How much do I still owe?"
        (
            r"(?i)^[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?\bfor\s+each\s+of\s+(?:my|our|the|his|her|their)\s+(\d+)\s+[a-z]+\b[^\d]*?\b(?:paid|given|sent|put\s+down)\s+[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*\b(?:owe|left\s+to\s+pay|remaining|outstanding|balance)\b[^\d]*$",
            "$1*$2 - $3",
        ),
        // "rent is 3450 and utilities are 165, both split evenly 3 ways, what's my share".
        (
            r"(?i)^[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b.*?\band\b[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?\b(?:both|all|together|combined)\s+(?:split|divided|shared)\s+(?:(?:evenly|equally)\s+)?(?:(\d+)\s+ways|(?:between|among)\s+(?:the\s+)?(\d+)(?:\s+of\s+us)?)\b[^\d]*$",
            "($1+$2)/$3$4",
        ),
        // "My check is $2,150 and $645 of it goes to the truck. What percent is that?"
        (
            r"(?i)^[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\s+of\s+(?:it|that|this|them|those)\b[^\d]*\bwhat\s+(?:percent|percentage|%)[^\d]*$",
            "$2/$1*100",
        ),
        (r"(?i)\badd\s+up\s+(?:all\s+)?(?:of\s+)?(my|our|the|these|his|her|their)\b", "total of $1"),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\b[^\d]*?\b(?:plus|with|and)\s+(?:an?\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:sales\s+)?(?:tax|vat|gst|gct|hst|tip|gratuity|service(?:\s+charge)?)\b[^\d]*?\b(?:split|divided|shared)\s+(?:(\d+)\s+ways|(?:between|among)\s+(?:the\s+)?(\d+)(?:\s+of\s+us)?)\b[^\d]*$",
            "$1*(1+$2/100)/$3$4",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+[a-z]+\b[^\d]*?\beach(?:\s+(?:1|one))?\s+(?:takes|needs|uses|gets|holds|weighs|costs)\s+(\d+(?:\.\d+)?)\b[^\d]*\bhow\s+(?:much|many)\b[^\d]*$",
            "$1 * $2",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+hours?\b[^\d]*?\band\s+(\d+(?:\.\d+)?)\s+hours?\b[^\d]*?\bat\s+(\d+(?:\.\d+)?)\s+(?:an?|per)\s+hour\b[^\d]*\bhow\s+much\b[^\d]*$",
            "($1+$2)*$3",
        ),
        (r"(?i)\s+(?:is|equals|makes|comes\s+to)\s+what\s*\??\s*$", ""),
        (
            r"(?i)(\d|\))(?:\s+(?:CURRENCIES))?[,\s]+(?:how\s+much\s+is\s+(?:that|it)|what(?:'s|s|\s+is)\s+that|what\s+do(?:es)?\s+(?:i|you|we|that|it)\s+(?:get|come\s+to|make))(?:\s+(?:then|altogether|in\s+all|all\s+together))?\s*[?.!]?\s*$",
            "$1",
        ),
        (r"(?i)[,\s]+go\s+on(?:\s+then)?\s*[.!?]?\s*$", ""),
        (r"(?i)[,\s]*\bplease\s*[.!?]?\s*$", ""),
        (r"(?i)(\d)\s+for\s+me(?:\s+please)?\s*[.!?]?\s*$", "$1"),
        (r"(\d|\))\s*[xX]\s*(\d|\()", "$1 * $2"),
        (r"(?i)^\s*(?:the|a|an)\s+", ""),
        (
            r"(?i)^\s*(?:which(?:\s+one)?\s+is\s+)?(?:the\s+)?(biggest|largest|highest|greatest|smallest|lowest)(?:\s+(?:number|one|value))?\s*[:,]\s*",
            "$1 of ",
        ),
        (r"[SIGNS](\d)", "$1"),
        (r"(?i)(\d)\s+(?:CURRENCIES)\b", "$1"),
        (r"(\d)\.\s*$", "$1"),
        (r"(?i)\b(?:total|sum)\s+up\b", "total of"),
        (
            r"(?i)\b(average|mean|median|sum|total|range)\s+of\s+(?:my|our|the|these|his|her|their)\s+(?:[a-z']+\s+){0,3}?((?:-?[\d.]+(?:\s*,\s*|\s*,?\s+and\s+))+-?[\d.]+)(?:\s+[a-z]+){0,4}\s*[.?]?\s*$",
            "$1($2)",
        ),
        (
            r"(?i)\b(average|mean|median|sum|total|range)\s+of\s+(?:my|our|the|these|his|her|their)\s+(?:[a-z'\d]+\s+){0,5}?[a-z']+\s*[:,]\s*(-?\d)",
            "$1 of $2",
        ),
        (
            r"(?i)\b(average|mean|median|sum|total|range|biggest|largest|highest|greatest|maximum|max|smallest|lowest|minimum|min)\s+(?:number\s+|value\s+)?(?:of\s+|in\s+|among\s+|these:?\s*|of\s+these:?\s*)((?:-?[\d.]+\s*(?:,|and|or|,\s*(?:and|or))?\s*)+?)\s*[.?]?\s*$",
            "$1($2)",
        ),
        (
            r"(?i)^.*?(?:\s|\b)((?:-?[\d.]+\s*,\s*)+-?[\d.]+\s*(?:,?\s*and\s+|,\s*)-?[\d.]+)\b.*?\b(average|mean|median|total|sum|range)\b.*$",
            "$2($1)",
        ),
        (r"[?SIGNS]", ""),
        (r"(?i)\bRs\.?\s*(\d)", "$1"),
        (r"\.\s*$", ""),
        (r"(?i)\s*\b(CURRENCIES|cents)\b", ""),
        (r"(?i)^\s*what\s+percent(?:age)?\s+is\s+(.+?)\s+(?:of|out\s+of)\s+(.+?)\s*$", "($1)/($2)*100"),
        (
            r"(?i)^[^\d]*?\bhow\s+many\s+times\s+(?:does|do|will|can|would)\s+(-?[\d.,]*\d)\s+go\s+into\s+(-?[\d.,]*\d)\s*$",
            "$2 / $1",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)[^\d]*?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+off\b[^\d]*\bhow\s+much\s+(?:does\s+that\s+knock\s+off|(?:do|did|will|would|can|could)\s+(?:we|i|you|they)\s+save)\s*$",
            "$1*$2/100",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+off\b[^\d]*?(\d+(?:\.\d+)?)[^\d]*\bhow\s+much\s+(?:does\s+that\s+knock\s+off|(?:do|did|will|would|can|could)\s+(?:we|i|you|they)\s+save)\s*$",
            "$2*$1/100",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+off\b[^\d]*\bhow\s+much\s+(?:do|did|will|would|can|could)\s+(?:we|i|you|they)\s+save\s+on\s+(?:an?\s+|the\s+|my\s+|our\s+)?(\d+(?:\.\d+)?)\b[^\d]*$",
            "$2*$1/100",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\b[^\d]*?\b(\d+(?:\.\d+)?)\b[^\d]*\b(?:what(?:'s|s|\s+is)\s+)?(?:the\s+)?percent(?:age)?\s+(?:drop|fall|decrease|increase|rise|change)\s*$",
            "abs($2-$1)/$1*100",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+){0,3}?(?:a|per|each|every)\s+(?:day|week|month|night)\b[^\d]*\bhow\s+many\s+(?:days|weeks|months|nights)\s+(?:will|would|does|do|can)\s+(?:the\s+|my\s+|our\s+)?(\d+(?:\.\d+)?)\b[^\d]*\blast\s*$",
            "$2 / $1",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)[^\d]*?\b(\d+(?:\.\d+)?)\s*(?:%|percent)\s+off\b[^\d]*\b(?:what|how\s+much)\s+(?:do|will|would|does|did|should)\s+(?:i|we|you|it|they)\s+(?:pay|cost|come\s+to)\s*$",
            "$1*(1-$2/100)",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+off\b[^\d]*?\b(?:what(?:'s|\s+is|\s+does)|how\s+much\s+(?:is|does))\s+(?:an?\s+|the\s+|my\s+)?(\d+(?:\.\d+)?)(?:\s+[a-z]+){0,3}?(?:\s+(?:now|cost|come\s+to|then))?\s*$",
            "$2*(1-$1/100)",
        ),
        (
            r"(?i)^[^\d]*\bfrom\s+(\d+(?:\.\d+)?)\b[^\d]*?\bto\s+(\d+(?:\.\d+)?)\b[^\d]*\bpercent(?:age)?\s+(?:increase|decrease|rise|drop|change|difference)(?:\s+is\s+(?:that|it))?\s*$",
            "abs($2-$1)/$1*100",
        ),
        (
            r"(?i)^[^\d]*\bfrom\s+(\d+(?:\.\d+)?)\b[^\d]*?\bto\s+(\d+(?:\.\d+)?)\b[^\d]*\b(?:by\s+)?(?:what|how\s+many)\s+(?:%|percent(?:age)?)\s+(?:did|has|have|does|do|is|was)\s+(?:it|that|they|the\s+[a-z]+|prices?)\s+(?:go(?:ne)?\s+(?:up|down)|ris(?:e|en)|increased?|drop(?:ped)?|f[ae]ll(?:en)?|changed?)(?:\s+by)?\s*$",
            "abs($2-$1)/$1*100",
        ),
        (
            r"(?i)^[^\d]*?\b(?:go(?:es|ing)?\s+up|went\s+up|ris(?:es|ing)|rose|increas(?:es|ed|ing)|put\s+up|goes\s+up)\s+(?:by\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:from|on)\s+(\d+(?:\.\d+)?)\b[^\d]*$",
            "$2*(1+$1/100)",
        ),
        (
            r"(?i)^[^\d]*?\b(?:go(?:es|ing)?\s+down|went\s+down|fall(?:s|ing)?|fell|drop(?:s|ped|ping)?|decreas(?:es|ed|ing)|cut)\s+(?:by\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:from|on)\s+(\d+(?:\.\d+)?)\b[^\d]*$",
            "$2*(1-$1/100)",
        ),
        (
            r"(?i)^\s*(\d+(?:\.\d+)?)\s+(?:with|plus|and)\s+(?:an?\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:(?:sales\s+)?tax|vat|gst|gct|hst|tip|gratuity|service(?:\s+charge)?|delivery(?:\s+charge)?)(?:\s+(?:on\s+top|added(?:\s+on)?|included|on))?\s*$",
            "$1*(1+$2/100)",
        ),
        (
            r"(?i)^\s*(\d+(?:\.\d+)?)\s+(?:less|minus|with)\s+(?:an?\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:off|discount)\s*$",
            "$1*(1-$2/100)",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+)?plus\s+(?:vat|tax)\s+at\s+(\d+(?:\.\d+)?)\s*(?:%|percent)[^\d]*\b(?:total|altogether|all\s+in|in\s+all|comes?\s+to|pay)\b[^\d]*$",
            "$1*(1+$2/100)",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+)?plus\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:vat|tax|service(?:\s+charge)?|tip)\b[^\d]*\b(?:total|altogether|all\s+in|in\s+all|comes?\s+to|pay)\b[^\d]*$",
            "$1*(1+$2/100)",
        ),
        (
            r"(?i)^[^\d]*\b(?:vat|tax|tip|gratuity)\s+on\s+(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+)?at\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s*$",
            "$1*$2/100",
        ),
        (
            r"(?i)\b(including|inclusive\s+of|with|inc)\s+((?:sales\s+)?tax|vat|gst|gct|hst|pst|iva|tva)\s+(?:at|of)\s+(\d+(?:\.\d+)?)\s*(%|percent)",
            "$1 $3$4 $2",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+)?(?:including|inclusive\s+of|with|inc)\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:vat|tax|iva|tva|gst|gct|hst|pst)\b[^\d]*\bbefore\s+(?:the\s+)?(?:vat|tax|iva|tva|gst|gct|hst|pst)\s*$",
            "$1/(1+$2/100)",
        ),
        (
            r"(?i)^[^\d]*(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+){0,3}?of\s+(?:the|our|my|a|an)\s+(\d+(?:\.\d+)?)\b[^\d]*\bwhat\s+percent(?:age)?\s+(?:is\s+that|is\s+it|(?:have|has)\s+(?:we|i|you|they|he|she)\s+(?:done|covered|used|had))\s*$",
            "($1)/($2)*100",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+)?(?:including|inclusive\s+of|with|inc)\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:vat|tax|iva|tva|gst|gct|hst|pst)\b[^\d]*\bhow\s+much\b[^\d]*?(?:\d+(?:\.\d+)?[^\d]*?)?\b(?:was|is)\s+(?:the\s+)?(?:vat|tax|iva|tva|gst|gct|hst|pst)\s*$",
            "$1-$1/(1+$2/100)",
        ),
        (
            r"(?i)^[^\d]*\b(?:vat|tax|iva|tva|gst)\b[^\d]*?(\d+(?:\.\d+)?)\s*(?:%|percent)[^\d]*?(\d+(?:\.\d+)?)[^\d]*\bwith\s+(?:the\s+)?(?:vat|tax|iva|tva|gst)\s*$",
            "$2*(1+$1/100)",
        ),
        (
            r"(?i)^[^\d]*(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+){0,5}?out\s+of\s+(\d+(?:\.\d+)?)\b[^\d]*\bwhat\s+percent(?:age)?\s+(?:is\s+that|is\s+it|did\s+(?:i|you|we|he|she|they)\s+get)\s*$",
            "($1)/($2)*100",
        ),
        (
            r"(?i)^\s*what\s+percent(?:age)?\s+of\s+(-?\d+(?:\.\d+)?)\s+is\s+(-?\d+(?:\.\d+)?)\s*\.?\s*$",
            "($2)/($1)*100",
        ),
        (
            r"(?i)^\s*(-?\d+(?:\.\d+)?)\s+is\s+what\s+percent(?:age)?\s+of\s+(-?\d+(?:\.\d+)?)\s*\.?\s*$",
            "($1)/($2)*100",
        ),
        (
            r"(?i)^\s*multiply\s+(-?\d+(?:\.\d+)?)\s+(?:by|and|with|times)\s+(-?\d+(?:\.\d+)?)\s*\.?\s*$",
            "$1 * $2",
        ),
        (
            r"(?i)^\s*divide\s+(-?\d+(?:\.\d+)?)\s+(?:by|into)\s+(-?\d+(?:\.\d+)?)\s*\.?\s*$",
            "$1 / $2",
        ),
        (
            r"(?i)^\s*(?:(?:if|when)\s+(?:you|i|we)\s+)?(?:take\s+)?(-?\d+(?:\.\d+)?)\s+and\s+(?:then\s+)?divide\s+(?:it\s+|that\s+)?by\s+(-?\d+(?:\.\d+)?)\s*\.?\s*$",
            "$1 / $2",
        ),
        (
            r"(?i)^\s*(?:(?:if|when)\s+(?:you|i|we)\s+)?(?:take\s+)?(-?\d+(?:\.\d+)?)\s+and\s+(?:then\s+)?(?:multiply|times)\s+(?:it\s+|that\s+)?by\s+(-?\d+(?:\.\d+)?)\s*\.?\s*$",
            "$1 * $2",
        ),
        (
            r"(?i)^\s*(?:(?:if|when)\s+(?:you|i|we)\s+)?(?:take\s+)?(-?\d+(?:\.\d+)?)\s+and\s+(?:then\s+)?add\s+(-?\d+(?:\.\d+)?)(?:\s+to\s+(?:it|that))?\s*\.?\s*$",
            "$1 + $2",
        ),
        (
            r"(?i)^\s*(?:(?:if|when)\s+(?:you|i|we)\s+)?(?:take\s+)?(-?\d+(?:\.\d+)?)\s+and\s+(?:then\s+)?(?:subtract|take\s+away|take\s+off)\s+(-?\d+(?:\.\d+)?)(?:\s+from\s+(?:it|that))?\s*\.?\s*$",
            "$1 - $2",
        ),
        (
            r"(?i)^\s*(?:(?:what\s+do\s+(?:you|i|we)\s+get|what's\s+left)\s+(?:if|when)\s+(?:you|i|we)\s+)?(?:subtract|take(?:\s+away)?)\s+(-?[\d,]*\d(?:\.\d+)?)\s+(?:away\s+)?from\s+(-?[\d,]*\d(?:\.\d+)?)\s*\.?\s*$",
            "$2 - $1",
        ),
        (
            r"(?i)^\s*add\s+(-?\d+(?:\.\d+)?)\s+to\s+(-?\d+(?:\.\d+)?)\s*\.?\s*$",
            "$1 + $2",
        ),
        (
            r"(?i)^\s*(?:split|divide|share)\s+(?:the\s+bill\s+of\s+)?(\d+(?:\.\d+)?)\s+(\d+)\s+ways\s*\.?\s*$",
            "$1 / $2",
        ),
        // "out of 800 doubles 120 was with no pepper that is what percentage".
        (
            r"(?i)^[^\d]*\bout\s+of\s+(\d+(?:\.\d+)?)\s+(?:[a-z']+\s+){0,3}?(\d+(?:\.\d+)?)\b[^\d]*\bwhat\s+percent(?:age)?\b[^\d]*$",
            "($2)/($1)*100",
        ),
        (
            r"(?i)^\s*(?:split|divide|share)\s+(?:the\s+bill\s+of\s+)?(\d+(?:\.\d+)?)\s+(?:between|among|amongst)\s+(\d+)(?:\s+(?:people|persons|friends|of\s+us))?\s*\.?\s*$",
            "$1 / $2",
        ),
        (
            r"(?i)^\s*(?:increase|raise)\s+(\d+(?:\.\d+)?)\s+by\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s*\.?\s*$",
            "$1*(1+$2/100)",
        ),
        (
            r"(?i)^\s*(\d+(?:\.\d+)?)\s+(?:increased|raised|marked\s+up)\s+by\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s*\.?\s*$",
            "$1*(1+$2/100)",
        ),
        (
            r"(?i)^\s*(?:decrease|reduce|lower|discount)\s+(\d+(?:\.\d+)?)\s+by\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s*\.?\s*$",
            "$1*(1-$2/100)",
        ),
        (
            r"(?i)^\s*(\d+(?:\.\d+)?)\s+(?:decreased|reduced|lowered|discounted|marked\s+down)\s+by\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s*\.?\s*$",
            "$1*(1-$2/100)",
        ),
        (
            r"(?i)^\s*(?:if\s+)?(?:a|an|the|my)?\s*(\d+(?:\.\d+)?)(?:\s+[a-z]+){0,3}\s+(?:is|are|was)\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s+off\b[^\d]*$",
            "$1*(1-$2/100)",
        ),
        (
            r"(?i)^\s*(?:an?|the|my)?\s*(\d+(?:\.\d+)?)(?:\s+[a-z]+){0,3}\s+(?:with|plus|and)\s+(?:an?\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:tip|tax|gratuity|service\s+charge)\s*,?\s*(?:comes\s+to\s+how\s+much|is\s+how\s+much|(?:what(?:s|\s+is)\s+)?(?:the\s+)?total|how\s+much\s+(?:in\s+total|altogether|is\s+that|do\s+i\s+pay))\s*\.?\s*$",
            "$1*(1+$2/100)",
        ),
        (
            r"(?i)^\s*round\s+(-?\d+(?:\.\d+)?)\s+to\s+(?:the\s+nearest\s+)?(\d+)\s+decimals?(?:\s+places?)?\s*\.?\s*$",
            "round($1*10^$2)/10^$2",
        ),
        (
            r"(?i)^\s*round\s+(-?\d+(?:\.\d+)?)\s+(?:to\s+the\s+nearest\s+(?:whole\s+number|integer|1|unit)|to\s+a\s+whole\s+number)\s*\.?\s*$",
            "round($1)",
        ),
        (
            r"(?i)^\s*round\s+(-?\d+(?:\.\d+)?)\s+to\s+the\s+nearest\s+(10|100|1000)\s*\.?\s*$",
            "round($1/$2)*$2",
        ),
        (
            r"(?i)^\s*round\s+(-?\d+(?:\.\d+)?)\s+to\s+the\s+nearest\s+hundred\s*\.?\s*$",
            "round($1/100)*100",
        ),
        (
            r"(?i)^\s*round\s+(-?\d+(?:\.\d+)?)\s+to\s+the\s+nearest\s+thousand\s*\.?\s*$",
            "round($1/1000)*1000",
        ),
        (r"(?i)\b(\d+)\s+factorial\b", "factorial($1)"),
        (r"(?i)\bfactorial\s+of\s+(\d+)\b", "factorial($1)"),
        (r"(\d+)\s*!(\s|$)", "factorial($1)$2"),
        (
            r"(?i)^\s*(?:add|sum)(?:\s+(?:these|those|them|all\s+(?:of\s+)?(?:these|this|those)))?(?:\s+(?:up|together))?(?:\s+for\s+me)?\s*:?\s+(.+)$",
            "sum($1)",
        ),
        (r"(?i)^\s*what\s+(?:do|does|would)\s+(.+?)\s+add\s+up\s+to\s*$", "sum($1)"),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:and\s+)?(?:it'?s|it\s+is|they'?re|they\s+are|is|are)\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s+off\b[^\d]*?\b(?:sale\s+price|price|cost|what\s+(?:is|does|do)\s+(?:it|that|they)\s+(?:come\s+to|cost))\s*$",
            "$1*(1-$2/100)",
        ),
        // "20 percent off at the merchant this week, how much would a 389 dollar drill come to"
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+off\b[^\d]*?\b(?:how\s+much|what)\b[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?\b(?:come\s+to|cost|be|set\s+me\s+back)\s*$",
            "$2*(1-$1/100)",
        ),
        // "15 percent off for nhs staff, how much do they pay for a 72 pound colour".
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+off\b[^\d]*?\bhow\s+much\s+(?:do|does|will|would|should)\s+(?:i|we|you|they|he|she)\s+pay\s+for\s+(?:an?\s+|the\s+)?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*$",
            "$2*(1-$1/100)",
        ),
        // "20% off €12.50 for the last of the crab meat".
        (
            r"(?i)^[^\d]*?([\d.]+)\s*(?:%|percent)\s+off\s+(?:an?\s+|the\s+)?([\d.]+)\s+(?:for|on)\s+[^\d]*$",
            "$2*(1-$1/100)",
        ),
        (
            r"(?i)([\d.]+)\s*(?:%|percent)\s+off\s+(?:an?\s+|the\s+)?([\d.]+)(?:\s+[a-z]+){1,2}\s*$",
            "$2*(1-$1/100)",
        ),
        (
            r"(?i)([\d.]+)\s*%\s*off\s+(?:an?\s+|the\s+)?([\d.]+)",
            "$2*(1-$1/100)",
        ),
        (
            r"(?i)([\d.]+)\s+percent\s+off\s+(?:an?\s+|the\s+)?([\d.]+)",
            "$2*(1-$1/100)",
        ),
        (
            r"(?i)(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:tip|(?:sales\s+)?tax|vat|gst|gct|hst|pst|iva|gratuity|service\s+charge|discount|deposit)\s+on\s+(?:(?:a|an|the|my|our)\s+)?(?:[a-z]+\s+){0,2}?(?:of\s+)?(\d+(?:\.\d+)?)(?:\s+(?:pounds?|quid|dollars?|euros?)\b)?(?:(?:\s+[a-z]+){1,3}\s*$)?",
            "$1% of $2",
        ),
        (r"(?i)\b(?:tip|(?:sales\s+)?tax|vat|gst|gct|hst|pst|discount)\s+on\b", "of"),
        (r"(?i)(\d)\s*(%|percent)\s+on\b", "$1 $2 of"),
        (r"(?i)([\d.]+)\s*(?:million)\b", "$1*1000000"),
        (r"(?i)([\d.]+)\s*(?:thousand)\b", "$1*1000"),
        (r"(?i)([\d.]+)\s*(?:billion)\b", "$1*1000000000"),
        (r"(?i)([\d.]+)\s*(?:lakhs?|lacs?)\b", "$1*100000"),
        (r"(?i)([\d.]+)\s*(?:crores?)\b", "$1*10000000"),
        (
            r"(?i)^[^\d]*?\b(\d+(?:\.\d+)?)\s*(?:%|percent)\s+of\s+(\d+(?:\.\d+)?)\s+[a-z][^\d]*$",
            "$1% of $2",
        ),
        (r"(\d)\s*,?\s+and\s+(\d)", "$1, $2"),
        (r"(\d)\s*,?\s+or\s+(\d)", "$1, $2"),
        (r"(?i)\b(?:biggest|largest|highest|greatest)\s*\(", "max("),
        (r"(?i)\b(?:smallest|lowest)\s*\(", "min("),
        (r"(?i)\bsquare\s+root\s+of\s+(-?[\d.]+)", "sqrt($1)"),
        (r"(?i)\bsqrt\s+(-?[\d.]+)", "sqrt($1)"),
        (r"(?i)\bcube\s+root\s+of\s+(-?[\d.]+)", "($1)^(1/3)"),
        (r"(?i)([\d.]+|\))\s*squared\b", "$1^2"),
        (r"(?i)([\d.]+)\s+square\s*$", "$1^2"),
        (r"(?i)([\d.]+|\))\s*cubed\b", "$1^3"),
        (r"²", "^2"),
        (r"³", "^3"),
        (r"(?i)\bto\s+the\s+(\d+)(?:st|nd|rd|th)?(?:\s+power)?\b", "^$1"),
        (r"(?i)\bto\s+the\s+second(?:\s+power)?\b", "^2"),
        (r"(?i)\bto\s+the\s+third(?:\s+power)?\b", "^3"),
        (r"(?i)\bto\s+the\s+fourth(?:\s+power)?\b", "^4"),
        (r"(?i)\bto\s+the\s+fifth(?:\s+power)?\b", "^5"),
        (r"(?i)\bto\s+the\s+sixth(?:\s+power)?\b", "^6"),
        (r"(?i)\b(?:to\s+the\s+power\s+of|raised\s+to(?:\s+the\s+power\s+of)?)\b", "^"),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:an?|per)\s+[a-z]+\s+(?:times|multiplied\s+by|x)\s+(\d+(?:\.\d+)?)(?:\s+[a-z]+)?\s*$",
            "$1 * $2",
        ),
        (r"(?i)(\d)\s+lots\s+of\s+([SIGNS]?\d)", "$1 * $2"),
        (r"(?i)\b(?:multiplied\s+by|times)\b", "*"),
        (r"(\d)\s+[xX]\s+(\d)", "$1 * $2"),
        (r"(?i)\b(?:divided\s+by|over)\b", "/"),
        (r"(?i)\bplus\b", "+"),
        (r"(?i)\bminus\b", "-"),
        (r"(?i)\btake\s+away\b", "-"),
        (r"(?i)\bpercent\b", "%"),
        (r"(?i)\bdouble\b", "2 *"),
        (r"(?i)\btriple\b", "3 *"),
        // Last, with the operators in signs: "sebo please whats 4750 * 18": words before a bare computation.
        (
            r"(?i)^\s*(?:[a-z']+[\s,]+){1,2}(?:what(?:'s|s|\s+is)|how\s+much\s+is)\s+(\(*-?\d[\d\s.+\-*/^()]*)\s*[?.!]?\s*$",
            "$1",
        ),
        // "i sold 18 juices at 4.50 each how much is 4.50 * 18": the
        // question told, then asked again as a bare computation.
        (
            r"(?i)^.*\b(?:what(?:'s|s|\s+is)|how\s+much\s+is)\s+(\(*-?\d[\d\s.()]*[*/+^-][\d\s.+\-*/^()]*)\s*[?.!]?\s*$",
            "$1",
        ),
        // "quick sum for ya 486 * 24": a few words before a product, sum or
        // quotient said in words (a hyphen may be a range of years).
        (
            r"(?i)^\s*(?:[a-z']+[\s,]+){1,5}(\d+(?:\.\d+)?\s*[*/+]\s*\d+(?:\.\d+)?)\s*[?.!]?\s*$",
            "$1",
        ),
    ]
    .into_iter()
    .map(|(pattern, to)| {
        let pattern = crate::numbers::with_currencies(pattern);
        (Regex::new(&pattern).expect("a valid regex"), to)
    })
    .collect()
});
