package concepts

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/noema-mem/noema/fuzzy"

	"github.com/noema-mem/noema/vault"
)

// This file analyses concept names for analyze_duplicates and for the
// second candidate channel of find_concepts: words folded for comparison
// (accents stripped, lowercase, English plurals singular, symbol forms such
// as c++, c# and .net kept), function words set apart, and the shapes that
// must never be merged with a plain name (file names, code identifiers,
// version numbers).

// functionWords are left out of folded names: "injection of dependencies"
// and "dependency injection" fold alike.
var functionWords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "for": true, "in": true, "on": true,
	"to": true, "with": true, "by": true, "at": true, "from": true, "into": true, "via": true,
	"as": true, "and": true, "its": true, "&": true,
}

// genericHeads are words that may follow a name without making it another
// concept: "Raft consensus algorithm" is Raft, "Git version control system"
// is Git, "C++ programming language" is C++.
var genericHeads = map[string]bool{
	"algorithm": true, "protocol": true, "system": true, "language": true, "programming": true,
	"framework": true, "library": true, "software": true, "technique": true, "method": true,
	"methodology": true, "approach": true, "paradigm": true, "toolkit": true, "platform": true,
	"consensus": true, "version": true, "control": true, "vcs": true, "concept": true,
	"lang": true, "project": true, "package": true, "engine": true, "format": true,
}

// productHeads are the genericHeads that, after a common noun, name a
// product for it ("deep learning framework" is software, not deep
// learning); after a capitalised name they are generic ("Raft framework").
var productHeads = map[string]bool{
	"framework": true, "library": true, "software": true, "toolkit": true, "platform": true,
	"engine": true, "package": true, "project": true,
}

// corporateSuffixes end a company's full name, which may put a word of
// its own before them ("Toyota Motor Corporation").
var corporateSuffixes = map[string]bool{
	"corporation": true, "corp": true, "inc": true, "ltd": true, "llc": true, "company": true,
	"plc": true, "gmbh": true, "co": true, "group": true, "holding": true, "limited": true,
	"incorporated": true, "ag": true, "sa": true, "nv": true, "bv": true, "spa": true, "pty": true,
	"kk": true, "oyj": true, "asa": true, "llp": true, "ab": true, "se": true, "oy": true, "sas": true,
	"srl": true, "sarl": true, "bhd": true, "kgaa": true,
}

// Extra words that do not change what a name names: "SQL injection
// attack" is SQL injection, "Apache Kafka" is Kafka. qualifierWords may
// follow (or, with "of", precede) a name; weakQualifiers only a name with
// two or more words or an upper-case letter ("Redis database", but not
// "graph database"); neither comes first. leadingQualifiers may come first
// (vendors, "Mount") before a name with an upper-case letter.
var (
	qualifierWords = map[string]bool{
		"attack": true, "pattern": true, "cryptocurrency": true, "blockchain": true, "disease": true,
		"syndrome": true, "disorder": true, "river": true, "desert": true, "ocean": true, "sea": true,
		"galaxy": true, "corporation": true, "corp": true, "inc": true, "ltd": true, "llc": true,
		"company": true, "incorporated": true, "ag": true, "sa": true, "nv": true, "bv": true, "spa": true,
		"plc": true, "gmbh": true, "pty": true, "kk": true, "oyj": true, "asa": true, "llp": true,
		"ab": true, "se": true, "oy": true, "sas": true, "srl": true, "sarl": true, "bhd": true, "kgaa": true,
	}
	// properPlaceWords are the qualifier words that follow the proper name
	// of a place or a galaxy only ("Nile River", "Andromeda Galaxy").
	properPlaceWords = map[string]bool{"river": true, "desert": true, "ocean": true, "sea": true, "galaxy": true}
	weakQualifiers   = map[string]bool{
		"database": true, "db": true, "model": true, "theory": true, "computer": true,
		"technology": true, "process": true, "os": true, "program": true, "application": true, "app": true,
		"service": true, "tool": true, "device": true, "mechanism": true, "lake": true, "mountain": true,
		"island": true, "design": true, "classifier": true, "optimizer": true,
	}
	leadingQualifiers = map[string]bool{
		"apache": true, "microsoft": true, "google": true, "apple": true, "amazon": true, "aws": true,
		"ibm": true, "oracle": true, "adobe": true, "mozilla": true, "meta": true, "facebook": true,
		"nvidia": true, "jetbrains": true, "mount": true, "mt": true, "sir": true, "lake": true,
		// Other well-known makers before their products ("Toyota
		// Prius", "Sony Walkman"): general knowledge, not a labelled
		// set's names.
		"samsung": true, "sony": true, "lenovo": true, "dell": true, "hp": true, "intel": true, "amd": true,
		"cisco": true, "sap": true, "salesforce": true, "toyota": true, "honda": true, "nissan": true,
		"ford": true, "bmw": true, "volkswagen": true, "vw": true, "audi": true, "porsche": true,
		"mercedes": true, "tesla": true, "spacex": true, "nasa": true, "boeing": true, "airbus": true,
		"nintendo": true, "sega": true, "netflix": true, "spotify": true, "github": true, "gitlab": true,
		"atlassian": true, "hashicorp": true, "redhat": true, "docker": true,
		"cloudflare": true, "azure": true, "gcp": true, "alibaba": true, "huawei": true, "xiaomi": true,
		"lg": true, "panasonic": true, "philips": true, "siemens": true, "bosch": true, "nikon": true,
		"kodak": true, "xerox": true, "logitech": true, "garmin": true, "dyson": true,
		"ikea": true, "lego": true, "disney": true, "pixar": true, "nokia": true, "motorola": true,
		"ericsson": true, "yahoo": true, "twitter": true, "linkedin": true,
		"dropbox": true, "shopify": true, "stripe": true, "paypal": true, "mastercard": true,
		"irobot": true, "gibson": true, "fender": true, "yamaha": true, "casio": true, "seiko": true,
		"rolex": true, "nike": true, "adidas": true, "uber": true, "lyft": true, "airbnb": true,
		"openai": true, "anthropic": true, "deepmind": true, "hubspot": true, "twilio": true, "datadog": true,
		"snowflake": true, "databricks": true, "vmware": true, "citrix": true, "autodesk": true,
		"blizzard": true, "ubisoft": true, "hyundai": true,
		"kia": true, "mazda": true, "subaru": true, "volvo": true, "fiat": true, "ferrari": true,
		"renault": true, "peugeot": true, "chevrolet": true, "chevy": true, "jeep": true, "dodge": true,
		"harley": true, "ducati": true, "kawasaki": true, "suzuki": true, "yamaha motor": true,
	}
)

// contractions are the standard contracted words (first and last letters
// kept) that shortens accepts: "Dept." for department, "Mt." for Mount.
var contractions = map[string]bool{
	"dept": true, "govt": true, "mgmt": true, "intl": true, "natl": true, "mt": true, "st": true,
	"ft": true, "dr": true, "jr": true, "sr": true, "assn": true, "bldg": true, "blvd": true,
	"ctr": true, "dist": true, "hwy": true, "pkg": true, "msg": true, "cfg": true, "txn": true,
	"yr": true, "hr": true, "rd": true, "ave": true, "mfg": true, "mkt": true, "acct": true,
	"atty": true, "cmd": true, "ctx": true, "doc": true, "env": true, "img": true, "lang": true,
	"mgr": true, "req": true, "resp": true, "src": true, "svc": true, "sys": true, "tbl": true,
}

// derivationSuffixes make a word from a word ("northern", "tokenization"):
// a word and its derivation are not a clip and its full form.
var derivationSuffixes = map[string]bool{
	"s": true, "es": true, "ed": true, "er": true, "ers": true, "or": true, "ing": true, "ern": true, "ly": true,
	"al": true, "ic": true, "ical": true, "ity": true, "ness": true, "ment": true, "ist": true,
	"ism": true, "ize": true, "ise": true, "ous": true, "ful": true, "less": true, "able": true,
	"ible": true, "ation": true, "ization": true, "isation": true, "ions": true, "ion": true,
	"ive": true, "ship": true, "hood": true, "dom": true, "ward": true, "wards": true, "ian": true,
	"ery": true, "ence": true, "ance": true, "ant": true, "ent": true, "y": true, "ianism": true,
	"ite": true, "ean": true, "esque": true,
}

// antonyms are word pairs that make two otherwise equal names opposites.
var antonyms = func() map[[2]string]bool {
	pairs := [][2]string{
		{"min", "max"}, {"minimum", "maximum"}, {"input", "output"}, {"push", "pull"},
		{"client", "server"}, {"read", "write"}, {"left", "right"}, {"upper", "lower"},
		{"before", "after"}, {"forward", "backward"}, {"encode", "decode"}, {"encoder", "decoder"},
		{"encoding", "decoding"}, {"encryption", "decryption"}, {"encrypt", "decrypt"},
		{"sync", "async"}, {"positive", "negative"}, {"static", "dynamic"}, {"internal", "external"},
		{"import", "export"}, {"inbound", "outbound"}, {"frontend", "backend"}, {"front", "back"},
		{"horizontal", "vertical"}, {"open", "closed"}, {"online", "offline"}, {"start", "end"},
		{"begin", "end"}, {"first", "last"}, {"true", "false"}, {"high", "low"}, {"big", "small"},
		{"major", "minor"}, {"local", "global"}, {"local", "remote"}, {"public", "private"},
		{"upstream", "downstream"}, {"serialize", "deserialize"}, {"serialization", "deserialization"},
		{"compression", "decompression"}, {"compress", "decompress"}, {"inner", "outer"},
		{"implicit", "explicit"}, {"strong", "weak"}, {"hard", "soft"}, {"hot", "cold"},
		{"lazy", "eager"}, {"mutable", "immutable"}, {"stateful", "stateless"}, {"blocking", "nonblocking"},
		{"row", "column"}, {"black", "white"}, {"red", "blue"}, {"red", "black"}, {"supervised", "unsupervised"},
		{"underfitting", "overfitting"}, {"precision", "recall"}, {"sender", "receiver"}, {"producer", "consumer"},
		{"leader", "follower"}, {"master", "slave"}, {"primary", "secondary"}, {"primary", "replica"},
		{"union", "intersection"}, {"ascending", "descending"}, {"increment", "decrement"},
		{"prefix", "suffix"}, {"head", "tail"}, {"top", "bottom"}, {"in", "out"}, {"up", "down"},
		{"on", "off"}, {"add", "remove"}, {"insert", "delete"}, {"get", "set"}, {"lock", "unlock"},
	}
	m := map[[2]string]bool{}
	for _, p := range pairs {
		m[p] = true
		m[[2]string{p[1], p[0]}] = true
	}
	return m
}()

// negationPrefixes turn a word into its opposite or a sibling
// ("supervised"/"unsupervised", "linear"/"nonlinear").
var negationPrefixes = []string{"un", "non", "in", "im", "ir", "il", "dis", "de", "anti", "a", "counter", "semi", "multi", "sub", "super", "pre", "post", "inter", "intra", "over", "under", "mis", "re", "bi", "mono", "poly", "auto"}

// fileExtensions mark a name as a file name.
var fileExtensions = map[string]bool{
	"cs": true, "py": true, "go": true, "js": true, "ts": true, "tsx": true, "jsx": true, "md": true,
	"json": true, "yaml": true, "yml": true, "txt": true, "png": true, "jpg": true, "jpeg": true,
	"gif": true, "svg": true, "pdf": true, "csv": true, "html": true, "css": true, "java": true,
	"rb": true, "rs": true, "cpp": true, "hpp": true, "h": true, "c": true, "sh": true, "toml": true,
	"xml": true, "sql": true, "kt": true, "swift": true, "php": true, "lock": true, "mod": true,
	"ipynb": true, "docx": true, "xlsx": true, "zip": true, "tar": true, "gz": true, "webp": true,
}

// irregularPlurals fold to their singular: the closed classes of English
// (f -> -ves, vowel changes) and the foreign plurals whose singular no
// rule below can tell from a word of its own (-a of -um: the rule would
// make "tantra" "tantrum" and "magnesia" "magnesium"; -ices; Hebrew -im
// and -ot).
var irregularPlurals = map[string]string{
	"indices": "index", "matrices": "matrix", "vertices": "vertex", "children": "child",
	"people": "person", "analyses": "analysis", "criteria": "criterion", "phenomena": "phenomenon",
	"hypotheses": "hypothesis", "theses": "thesis", "axes": "axis", "mice": "mouse", "men": "man",
	"women": "woman", "geese": "goose", "feet": "foot", "teeth": "tooth", "appendices": "appendix",
	"schemata": "schema", "corpora": "corpus", "leaves": "leaf", "lives": "life", "halves": "half",
	"knives": "knife", "wolves": "wolf", "selves": "self", "lice": "louse", "oxen": "ox",
	// f and fe -> -ves, a closed class ("calves", but "curves", "saves").
	"calves": "calf", "hooves": "hoof", "scarves": "scarf", "wharves": "wharf", "thieves": "thief",
	"loaves": "loaf", "sheaves": "sheaf", "elves": "elf", "shelves": "shelf", "dwarves": "dwarf",
	"wives": "wife", "beeves": "beef", "turves": "turf", "staves": "staff", "yourselves": "yourself",
	"themselves": "themself", "ourselves": "ourself",
	"radii": "radius", "nuclei": "nucleus", "stimuli": "stimulus", "fungi": "fungus", "cacti": "cactus",
	"syllabi": "syllabus", "alumni": "alumnus", "foci": "focus", "loci": "locus",
	// Latin and Greek -a, -ae, -ices and -es plurals.
	"bacteria": "bacterium", "media": "medium", "curricula": "curriculum", "strata": "stratum",
	"millennia": "millennium", "memoranda": "memorandum", "spectra": "spectrum", "quanta": "quantum",
	"maxima": "maximum", "minima": "minimum", "optima": "optimum", "referenda": "referendum",
	"symposia": "symposium", "consortia": "consortium", "errata": "erratum", "addenda": "addendum",
	"ova": "ovum", "crania": "cranium", "larvae": "larva", "formulae": "formula", "antennae": "antenna",
	"vertebrae": "vertebra", "algae": "alga", "nebulae": "nebula", "supernovae": "supernova",
	"minutiae": "minutia", "automata": "automaton", "taxa": "taxon", "mitochondria": "mitochondrion",
	"ganglia": "ganglion", "vortices": "vortex", "apices": "apex", "cortices": "cortex",
	"helices": "helix", "simplices": "simplex", "crises": "crisis", "diagnoses": "diagnosis",
	"prognoses": "prognosis", "syntheses": "synthesis", "parentheses": "parenthesis", "oases": "oasis",
	"neuroses": "neurosis", "genera": "genus", "stomata": "stoma", "lemmata": "lemma",
	"phyla": "phylum", "subphyla": "subphylum", "stadia": "stadium", "aquaria": "aquarium",
	"terraria": "terrarium", "auditoria": "auditorium", "crematoria": "crematorium",
	"sanatoria": "sanatorium", "moratoria": "moratorium", "compendia": "compendium",
	"gymnasia": "gymnasium", "podia": "podium", "atria": "atrium", "septa": "septum",
	"ultimata": "ultimatum", "continua": "continuum", "equilibria": "equilibrium",
	"flagella": "flagellum", "cerebella": "cerebellum", "mausolea": "mausoleum", "ilia": "ilium",
	"sera": "serum", "desiderata": "desideratum", "dicta": "dictum", "fora": "forum",
	"candelabra": "candelabrum", "emporia": "emporium", "honoraria": "honorarium", "cilia": "cilium",
	"epithelia": "epithelium", "mycelia": "mycelium", "sporangia": "sporangium", "momenta": "momentum",
	"colloquia": "colloquium", "codices": "codex", "radices": "radix", "cervices": "cervix",
	"stigmata": "stigma", "dogmata": "dogma",
	// Hebrew -im and -ot.
	"cherubim": "cherub", "seraphim": "seraph", "kibbutzim": "kibbutz", "moshavim": "moshav",
	"goyim": "goy", "matzot": "matzo", "matzoth": "matzo", "mitzvot": "mitzvah", "mitzvoth": "mitzvah",
}

// keepS are words that end in s without being plurals.
var keepS = map[string]bool{
	"https": true, "aws": true, "dns": true, "gps": true, "sms": true, "ios": true, "macos": true,
	"news": true, "series": true, "species": true, "bias": true, "alias": true, "canvas": true,
	"atlas": true, "chaos": true, "lens": true, "redis": true, "kubernetes": true, "postgres": true,
	"pandas": true, "analysis": true, "basis": true, "thesis": true, "axis": true, "ethos": true,
	"logos": true, "pathos": true, "gas": true, "bus": true, "plus": true, "minus": true, "nexus": true,
	"corpus": true, "status": true, "campus": true, "virus": true, "focus": true, "census": true,
	"consensus": true, "apparatus": true, "radius": true, "nucleus": true, "stimulus": true,
	"linux": true, "windows": true, "jenkins": true, "mars": true, "venus": true, "paris": true,
	"yes": true, "this": true, "is": true, "was": true, "has": true, "does": true, "always": true,
	"perhaps": true, "less": true, "across": true, "express": true, "ajax": true,
}

// singular folds an English plural to its singular; other words are
// returned as they are. Both names of a pair go through it, so a wrong
// singular only matters when it makes two different words equal.
// Besides the suffix rules and irregularPlurals, the shapes that are
// plurals only of some words ask the English word list (4-20 letters):
// -es after a word ("heroes", "beaches", "bonuses", but "canoes",
// "caches"), -ies of a word in -ie ("movies"), -zzes ("quizzes"), and
// the foreign -i of -us ("bacilli"), -ae of -a ("tibiae"), -eaux of -eau
// -is of a word ("taxis"), and the compounds of -man, -mouse, -louse,
// -foot, -tooth, -goose and the -ves of irregularPlurals ("firemen",
// "dormice", "bookshelves") — each only when its singular is a word.
func singular(w string) string {
	if s, ok := irregularPlurals[w]; ok {
		return s
	}
	n := len(w)
	if n > 4 && strings.HasSuffix(w, "es") && keepS[w[:n-2]] {
		return w[:n-2] // buses, viruses, statuses
	}
	if s, ok := pluralOfWord(w); ok {
		return s
	}
	if n <= 3 || keepS[w] || !strings.HasSuffix(w, "s") || !isLetters(w) || w[n-2] == 'j' {
		return w // "angularjs", "nextjs": not plurals
	}
	switch {
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"),
		strings.HasSuffix(w, "ics"), strings.HasSuffix(w, "ous"), strings.HasSuffix(w, "sis"):
		return w
	case strings.HasSuffix(w, "ies") && n > 4:
		return w[:n-3] + "y"
	case n >= 5 && strings.HasSuffix(w, "ches") && strings.ContainsRune("aeiou", rune(w[n-5])):
		return w[:n-1] // caches, niches
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"),
		strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "zzes"):
		return w[:n-2]
	}
	return w[:n-1]
}

// compoundPlurals are the irregular plurals that end compounds
// ("firemen", "dormice", "midwives"), with their singulars.
var compoundPlurals = [][2]string{
	{"men", "man"}, {"mice", "mouse"}, {"lice", "louse"}, {"feet", "foot"}, {"teeth", "tooth"},
	{"geese", "goose"}, {"lives", "life"}, {"wives", "wife"}, {"knives", "knife"}, {"wolves", "wolf"},
	{"shelves", "shelf"}, {"leaves", "leaf"},
}

// pluralOfWord folds the plurals whose shape is a plural only of some
// words, by the English word list: the singular must be a word and, for
// -es and -zzes, the regular fold ("heroe", "beache", "quizz") must not.
func pluralOfWord(w string) (string, bool) {
	n := len(w)
	if n < 5 || !isLetters(w) || keepS[w] {
		return "", false
	}
	l := englishWords()
	switch {
	case strings.HasSuffix(w, "zzes") && !l.has(w[:n-2]) && l.has(w[:n-3]):
		return w[:n-3], true // quizzes
	case strings.HasSuffix(w, "ies") && n > 5:
		// A word in -ie is the singular even when its -y is a word too:
		// that is mostly a variant of it ("cookies": cookie, cooky). Not
		// under six letters: the list has no word of three to say "spy",
		// "fly", "sky" are ("spie" is an old word).
		if l.has(w[:n-1]) {
			return w[:n-1], true // movies, zombies, brownies
		}
	case strings.HasSuffix(w, "es") && !strings.HasSuffix(w, "ies"):
		if !l.has(w[:n-1]) && l.has(w[:n-2]) {
			return w[:n-2], true // heroes, beaches, bonuses
		}
	case strings.HasSuffix(w, "eaux") && l.has(w[:n-1]):
		return w[:n-1], true // plateaux
	case strings.HasSuffix(w, "ae") && l.has(w[:n-1]):
		return w[:n-1], true // tibiae
	case strings.HasSuffix(w, "i") && l.has(w[:n-1]+"us"):
		return w[:n-1] + "us", true // bacilli
	case strings.HasSuffix(w, "is") && !strings.HasSuffix(w, "sis") && l.has(w[:n-1]):
		return w[:n-1], true // taxis, kiwis (but "tennis", "pelvis")
	}
	for _, p := range compoundPlurals {
		if stem, ok := strings.CutSuffix(w, p[0]); ok && len(stem) >= 2 && l.has(stem+p[1]) {
			return stem + p[1], true // firemen, dormice
		}
	}
	return "", false
}

func isLetters(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// stripAccents removes combining marks after canonical decomposition:
// "Café" becomes "Cafe", "Gödel" becomes "Godel".
func stripAccents(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	d := norm.NFD.String(s)
	var b strings.Builder
	b.Grow(len(d))
	for _, r := range d {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if t, ok := undecomposed[r]; ok {
			b.WriteString(t)
			continue
		}
		b.WriteRune(r)
	}
	return norm.NFC.String(b.String())
}

// undecomposed are the Latin letters that NFD leaves whole, with the
// letters they are written as without diacritics ("Łódź" is "Lodz",
// "Brønsted" "Bronsted", "Þingvellir" "Thingvellir"); ß is left to
// the vault key's case folding ("ss").
var undecomposed = map[rune]string{
	'ł': "l", 'Ł': "L", 'ø': "o", 'Ø': "O", 'đ': "d", 'Đ': "D", 'æ': "ae", 'Æ': "Ae",
	'œ': "oe", 'Œ': "Oe", 'þ': "th", 'Þ': "Th", 'ð': "d", 'Ð': "D", 'ı': "i", 'ħ': "h", 'Ħ': "H",
	'ŧ': "t", 'Ŧ': "T",
}

// words splits a name into lowercase words, keeping symbol forms: a word's
// trailing + and # ("c++", "c#", "f#") and a leading dot before letters
// (".net"). Every other character that is not a letter or digit separates
// words. Accents are stripped.
func words(name string) []string {
	s := strings.ToLower(stripAccents(joinInitials(name)))
	var out []string
	rs := []rune(s)
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = append(cur, r)
		case (r == '\'' || r == '’') && len(cur) > 0 && i+1 < len(rs) && unicode.IsLetter(rs[i+1]) &&
			(i+2 == len(rs) || !unicode.IsLetter(rs[i+2])) && rs[i+1] != 's':
			// "don't", "can't": one word ("don't repeat yourself" is DRY);
			// a possessive "'s" stays a word of its own.
		case (r == '+' || r == '#') && len(cur) > 0 && len(cur) <= 2 && unicode.IsLetter(cur[len(cur)-1]):
			// c++, c#, f#, j#: a short word followed by its symbols.
			for i < len(rs) && (rs[i] == '+' || rs[i] == '#') {
				cur = append(cur, rs[i])
				i++
			}
			i--
			flush()
		case r == '.' && len(cur) == 0 && i+1 < len(rs) && unicode.IsLetter(rs[i+1]) && (i == 0 || rs[i-1] == ' '):
			cur = append(cur, r) // .net
		default:
			flush()
		}
	}
	flush()
	return out
}

// joinInitials writes initialisms as one word: letters of one or two
// separated by dots ("U.S.A.", "Ph.D.", "M.Sc.") or joined by a slash or
// an ampersand ("A/B", "R&D", "CI/CD") become "USA", "PhD", "MSc", "AB",
// "RD", "CICD".
func joinInitials(name string) string {
	if !strings.ContainsAny(name, "./&") {
		return name
	}
	fields := strings.Fields(name)
	changed := false
	for i, f := range fields {
		sep := ""
		switch {
		case strings.Count(f, ".") >= 2 && strings.HasSuffix(f, "."):
			sep = "."
		case strings.Count(f, "/")+strings.Count(f, "&") == 1:
			sep = "/&"
		default:
			continue
		}
		parts := strings.FieldsFunc(f, func(r rune) bool { return strings.ContainsRune(sep, r) })
		ok := len(parts) >= 2
		for _, p := range parts {
			ok = ok && len(p) <= 2 && isLetters(p)
		}
		if ok {
			fields[i] = strings.Join(parts, "")
			changed = true
		}
	}
	if !changed {
		return name
	}
	return strings.Join(fields, " ")
}

// acronymText reports whether a one-word name is written as an acronym:
// 2-6 letters, at least two upper case and upper case at least half of
// them ("CI", "IoT", "SaaS", "DoS"), after joinInitials ("U.S.A.").
func acronymText(text string) bool {
	t := joinInitials(strings.TrimSpace(text))
	upper, letters := 0, 0
	for _, r := range t {
		switch {
		case unicode.IsUpper(r):
			upper++
			letters++
		case unicode.IsLetter(r):
			letters++
		default:
			return false
		}
	}
	return letters >= 2 && letters <= 6 && upper >= 2 && 2*upper >= letters
}

// nameInfo is a concept name analysed for comparison.
type nameInfo struct {
	text string
	key  string
	// proc is the name after fuzzy.DefaultProcess (what WRatio compares).
	proc string
	// all are the folded words in order (singular, accents stripped),
	// function words included; content leaves them out.
	all, content []string
	// folded is the sorted, de-duplicated content words joined with a
	// space: the key after case, accent, separator, plural, word order
	// and function word folding.
	folded string
	// compact is content joined without spaces ("java script" and
	// "javascript" compact alike); raw the same before plurals are
	// folded (typos are measured on it: "kuberentes" is one edit from
	// "kubernetes", but its singular is not).
	compact, raw string
	// full is every word (function words too) joined without spaces:
	// "log in" and "login" are one spelling.
	full string
	// parts are the words split at case changes too ("GraphTools.cs":
	// graph, tool, cs).
	parts []string
	// qualBase is the folded key of the name before a qualifier after a
	// comma or in parentheses ("Munich" of "Munich, Germany", "Mercury"
	// of "Mercury (planet)"); "" when there is none.
	qualBase string
	// qual are the content words of the qualifier ("planet" of "Mercury
	// (planet)"); qualParen whether it is in parentheses.
	qual      []string
	qualParen bool
	// lex are the folded keys of the name with a short form of the
	// lexicon written out ("sergeant" of "Sgt.", lexicon.go).
	lex []lexKey
	// acro marks a one-word name written as an acronym ("CI", "IoT");
	// acroWord is its letters in lower case, a plural s dropped ("APIs").
	acro     bool
	acroWord string
	// upper is whether the name has an upper-case letter (a proper name
	// or a product, not a common noun).
	upper bool
	// core is content without trailing generic head words.
	core []string
	// file and ident mark file names and code identifiers.
	file, ident bool
	// numbers are the digit runs and roman numerals of the name, in order.
	numbers []string
	// variant is folded with every word in American spelling, "" when
	// that is folded itself (variants.go).
	variant string
	// acroAt are the positions in all of words written as acronyms in a
	// name of two words or more ("LRU cache").
	acroAt []int
	// acroLex are the keys of the acronym lexicon's short forms the name
	// is written as ("TV": tv; acronyms.go).
	acroLex []string
}

func analyseName(text string) nameInfo {
	n := nameInfo{text: text, key: vault.Key(text)}
	n.proc = fuzzy.DefaultProcess(text)
	var raw []string
	for _, w := range words(text) {
		if !functionWords[w] {
			raw = append(raw, w)
		}
		w = singular(w)
		n.all = append(n.all, w)
		if !functionWords[w] {
			n.content = append(n.content, w)
		}
	}
	if len(n.content) == 0 {
		n.content = n.all
	}
	sorted := slices.Clone(n.content)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	n.folded = strings.Join(sorted, " ")
	n.compact = strings.Join(n.content, "")
	n.raw = strings.Join(raw, "")
	n.full = strings.Join(n.all, "")
	if i := strings.IndexAny(text, ",("); i > 0 && strings.TrimSpace(text[i+1:]) != "" && !dottedInitials(text[i+1:]) {
		if b := analyseBase(text[:i]); b != "" && len(n.content) > 1 {
			n.qualBase = b
			n.qual = contentWords(strings.TrimSuffix(strings.TrimSpace(text[i+1:]), ")"))
			n.qualParen = text[i] == '('
		}
	}
	n.acro = acronymText(text)
	if n.acro {
		t := joinInitials(strings.TrimSpace(text))
		if strings.HasSuffix(t, "s") && len(t) > 2 {
			t = t[:len(t)-1]
		}
		n.acroWord = strings.ToLower(t)
	}
	n.upper = strings.IndexFunc(text, unicode.IsUpper) >= 0
	n.parts = camelParts(text)
	n.core = n.content
	for len(n.core) > 1 && genericHeads[n.core[len(n.core)-1]] {
		n.core = n.core[:len(n.core)-1]
	}
	n.file = isFileName(text)
	n.ident = isCodeIdentifier(text)
	n.numbers = numbersOf(text)
	n.variant = variantKey(&n, text)
	n.acroAt = acronymTokens(text, n.all)
	n.acroLex = acronymLexicon().lexAcronyms(&n)
	for _, k := range lexiconKeys(text, n.content) {
		if k.key != n.folded {
			n.lex = append(n.lex, k)
		}
	}
	return n
}

// dottedInitials reports whether a qualifier is written as dotted initials
// ("D.C." of "Washington, D.C."): a part of the name that makes it
// another place or body, not a qualifier that says which one.
func dottedInitials(q string) bool {
	q = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(q), ")"))
	return strings.Count(q, ".") >= 2 && acronymText(q)
}

// analyseBase is the folded key of text (sorted singular content words).
func analyseBase(text string) string {
	var content []string
	for _, w := range words(text) {
		if w = singular(w); !functionWords[w] {
			content = append(content, w)
		}
	}
	slices.Sort(content)
	return strings.Join(slices.Compact(content), " ")
}

// isFileName reports whether a name ends in a known file extension
// ("GraphTools.cs", "README.md"). A capitalised name ending in .js is a
// library ("Node.js", "Vue.js"), not a file.
func isFileName(s string) bool {
	i := strings.LastIndexByte(s, '.')
	if i <= 0 || i == len(s)-1 || strings.ContainsRune(s[i:], ' ') {
		return false
	}
	if strings.EqualFold(s[i+1:], "js") && unicode.IsUpper([]rune(s)[0]) {
		return false
	}
	return fileExtensions[strings.ToLower(s[i+1:])]
}

// isCodeIdentifier reports whether a name looks like code: a call or path
// ("parse()", "os::path", "a->b"), snake_case, or lowerCamelCase
// ("getUserName").
func isCodeIdentifier(s string) bool {
	if strings.Contains(s, "()") || strings.Contains(s, "::") || strings.Contains(s, "->") {
		return true
	}
	if !strings.ContainsRune(s, ' ') && strings.Count(s, "_") >= 1 && strings.Trim(s, "_") != "" {
		inner := strings.Trim(s, "_")
		if strings.Contains(inner, "_") {
			return true
		}
	}
	rs := []rune(s)
	if strings.ContainsRune(s, ' ') || len(rs) < 5 || !unicode.IsLower(rs[0]) {
		return false
	}
	lowers := 0
	for i := 0; i < len(rs); i++ {
		if unicode.IsLower(rs[i]) {
			lowers++
			continue
		}
		if unicode.IsUpper(rs[i]) {
			// lowerCamelCase: two or more lowercase letters, then an
			// upper-case letter followed by a lowercase one ("getUser",
			// not "iPhone", "macOS" or "eBPF").
			return lowers >= 2 && i+1 < len(rs) && unicode.IsLower(rs[i+1])
		}
	}
	return false
}

// romanNumerals are read as numbers when they are words of their own.
var romanNumerals = map[string]bool{"i": true, "ii": true, "iii": true, "iv": true, "v": true, "vi": true, "vii": true, "viii": true, "ix": true, "x": true}

// numbersOf returns the digit runs of a name and its roman numerals (as
// separate words), in order.
func numbersOf(s string) []string {
	var out []string
	var cur []rune
	for _, r := range s {
		if unicode.IsDigit(r) {
			cur = append(cur, r)
			continue
		}
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = nil
		}
	}
	if len(cur) > 0 {
		out = append(out, string(cur))
	}
	for i, w := range strings.FieldsFunc(strings.ToLower(joinInitials(s)), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		// A numeral follows a name ("World War II", "Type I"); a first
		// word is a letter ("X-ray", "X Window System"); dotted
		// initials are one word ("Heineken N.V.", not a fifth).
		if romanNumerals[w] && i > 0 {
			out = append(out, w)
		}
	}
	return out
}

// camelParts splits a name into words at case changes as well as at
// separators ("GraphTools.cs" → graph, tools, cs), singular.
func camelParts(s string) []string {
	var out []string
	var cur []rune
	rs := []rune(stripAccents(s))
	flush := func() {
		if len(cur) > 0 {
			out = append(out, singular(strings.ToLower(string(cur))))
			cur = nil
		}
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if unicode.IsUpper(r) && len(cur) > 0 {
			prevLower := unicode.IsLower(rs[i-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || (unicode.IsUpper(rs[i-1]) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// osa is the optimal string alignment distance (Levenshtein with adjacent
// transpositions) of a and b, or max+1 when it exceeds max.
func osa(a, b []rune, max int) int {
	if d := len(a) - len(b); d > max || -d > max {
		return max + 1
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		lo := i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			lo = min(lo, v)
		}
		if lo > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
