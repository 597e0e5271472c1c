package concepts

import (
	_ "embed"
	"slices"
	"strings"
	"sync"
)

// placesText is the shipped list of well-known cities by the regions
// they are in (places.txt): general knowledge of geography, written for
// noema, not taken from any labelled set.
//
//go:embed places.txt
var placesText string

// gazetteer is placesText read: each city's regions (its region and the
// country's names, "texas", "united state", "usa"…) by the city's folded
// key, and every region name it knows, each as its content words joined
// by a space.
type gazetteer struct {
	city   map[string][]string
	region map[string]bool
}

// regionAliases are the other names of the country of a region prefix.
var regionAliases = map[string][]string{
	"us": {"united states", "united states of america", "usa", "us", "america"},
	"uk": {"united kingdom", "uk", "britain", "great britain"},
	"ca": {"canada"},
	"au": {"australia"},
}

// places is the gazetteer, read once.
var places = sync.OnceValue(func() *gazetteer {
	g := &gazetteer{city: map[string][]string{}, region: map[string]bool{}}
	for c := range countries {
		g.region[c] = true
	}
	for _, line := range strings.Split(placesText, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		reg, cities, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		prefix, name, ok := strings.Cut(strings.TrimSpace(reg), ":")
		names := []string{prefix}
		if ok {
			names = append([]string{name}, regionAliases[prefix]...)
		}
		var keys []string
		for _, n := range names {
			k := strings.Join(contentWords(n), " ")
			keys = append(keys, k)
			g.region[k] = true
		}
		for _, c := range strings.Split(cities, ",") {
			ws := contentWords(c)
			if len(ws) == 0 {
				continue
			}
			slices.Sort(ws)
			k := strings.Join(slices.Compact(ws), " ")
			for _, r := range keys {
				if !slices.Contains(g.city[k], r) {
					g.city[k] = append(g.city[k], r)
				}
			}
		}
	}
	return g
})

// Place qualifiers (placeQualifier).
const (
	placeUnknown = iota
	placeSame    // "Munich, Germany": the bare name's region
	placeOther   // "Manchester, New Hampshire": another place of that name
)

// placeQualifier says what the qualifier words q make of the place whose
// folded key is base: the region the gazetteer puts it in, another
// region it knows, or unknown (a city or a region it does not list).
// A state written short ("TX", "Calif.") is its long form.
func placeQualifier(base string, q []string) int {
	g := places()
	regs, ok := g.city[base]
	if !ok || len(q) == 0 {
		return placeUnknown
	}
	ks := []string{strings.Join(q, " ")}
	if e := lexicon()[ks[0]]; e != nil {
		for _, l := range e.long {
			ks = append(ks, strings.Join(l, " "))
		}
	}
	known := false
	for _, k := range ks {
		if slices.Contains(regs, k) {
			return placeSame
		}
		known = known || g.region[k]
	}
	if known {
		return placeOther
	}
	return placeUnknown
}

// cityPlace reports whether long is the city short with a geographic word
// ("Lake Winnipeg", "Tbilisi Sea") or a word of a thing the city has
// ("Ashgabat Airport"): a lake, river or sea named like the city, or the
// city named after it, is another place, and its airport another thing.
func cityPlace(short, long *nameInfo) bool {
	if !isCity(short) || len(long.content) <= len(short.content) {
		return false
	}
	rest := slices.Clone(long.content)
	for _, w := range short.content {
		i := slices.Index(rest, w)
		if i < 0 {
			return false
		}
		rest = slices.Delete(rest, i, i+1)
	}
	return len(rest) == 1 && (geographicWords[rest[0]] || cityThings[rest[0]])
}

// cityThings are the words of a thing a city has and names after itself
// ("Ashgabat Airport", "Aarhus University", "Lyon Station"): another
// thing than the city.
var cityThings = map[string]bool{
	"airport": true, "university": true, "station": true, "port": true, "harbour": true, "harbor": true,
	"stadium": true, "bay": true, "county": true, "district": true, "cathedral": true, "metro": true,
}

// cityBefore reports whether long is a city of the gazetteer followed by
// short, a coined name ("Amsterdam Schiphol" / "Schiphol").
func cityBefore(short, long *nameInfo) bool {
	k := len(long.content) - len(short.content)
	if k < 1 || k > 2 || !hasSuffix(long.content, short.content) || !coinedName(short) || !capitalisedName(long.text) {
		return false
	}
	_, ok := places().city[strings.Join(long.content[:k], " ")]
	return ok
}

// twoPlaces reports whether a and b are places the gazetteer knows in no
// region in common (a country, a region or a city each): "Colombia" /
// "Columbia", not "Kyiv" / "Kiev".
func twoPlaces(a, b *nameInfo) bool {
	ra, rb := placeRegions(a), placeRegions(b)
	return len(ra) > 0 && len(rb) > 0 && !slices.ContainsFunc(ra, func(r string) bool { return slices.Contains(rb, r) })
}

// placeRegions are the regions the gazetteer puts n in: itself for a
// region or a country, a city's regions.
func placeRegions(n *nameInfo) []string {
	g := places()
	if g.region[n.folded] {
		return []string{n.folded}
	}
	return g.city[n.folded]
}

// nationalityBefore reports whether long is a nationality followed by
// short, a capitalised name of two words or more ("English Premier
// League" / "Premier League").
func nationalityBefore(short, long *nameInfo) bool {
	return len(short.content) >= 2 && len(long.content) == len(short.content)+1 && nationalities[long.content[0]] &&
		hasSuffix(long.content, short.content) && capitalisedName(short.text) && capitalisedName(long.text)
}

// isCity reports whether n is the name of a city of the gazetteer.
func isCity(n *nameInfo) bool {
	_, ok := places().city[n.folded]
	return ok
}

// letterVariant reports whether a and b are one name of two words or more
// but for one word that is a single letter in each ("hepatitis A" /
// "hepatitis B"), and those letters.
func letterVariant(a, b *nameInfo) (x, y string, ok bool) {
	if len(a.all) < 2 || len(a.all) != len(b.all) {
		return "", "", false
	}
	diff := 0
	for i := range a.all {
		if a.all[i] != b.all[i] {
			diff++
			x, y = a.all[i], b.all[i]
		}
	}
	return x, y, diff == 1 && len(x) == 1 && len(y) == 1 && isLetters(x) && isLetters(y)
}
