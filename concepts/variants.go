package concepts

import (
	_ "embed"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// This file holds the name shapes of round 4 (docs/duplicates.md): British
// and American spellings of one word, a person's name and surname, an
// acronym of one long word, and an acronym written among other words of a
// name ("LRU cache" / "least recently used cache").

// spellingWords are British spellings no suffix rule of americanWord
// reaches, with their American form.
var spellingWords = map[string]string{
	"programme": "program", "grey": "gray", "tyre": "tire", "aluminium": "aluminum",
	"sceptic": "skeptic", "sceptical": "skeptical", "scepticism": "skepticism", "mould": "mold",
	"plough": "plow", "draught": "draft", "cheque": "check", "pyjamas": "pajamas", "kerb": "curb",
	"gaol": "jail", "defence": "defense", "offence": "offense", "licence": "license",
	"pretence": "pretense", "ageing": "aging", "judgement": "judgment",
	"acknowledgement": "acknowledgment", "fulfil": "fulfill", "enrol": "enroll",
	"instalment": "installment", "skilful": "skillful", "wilful": "willful",
	"manoeuvre": "maneuver", "jewellery": "jewelry", "sulphur": "sulfur",
	"artefact": "artifact", "analogue": "analog", "moustache": "mustache", "doughnut": "donut",
	"cosy": "cozy", "ploughing": "plowing", "smoulder": "smolder", "carat": "karat",
	"arbour": "arbor", "axe": "ax", "practise": "practice", "speciality": "specialty",
	"yoghurt": "yogurt", "cheques": "checks", "kerbs": "curbs", "tonne": "ton",
	// Round 7 (split J): -il and -l words, compounds of the words above.
	"instil": "instill", "distil": "distill", "fulfilment": "fulfillment", "enrolment": "enrollment",
	"instilment": "installment", "appal": "appall", "draughtsman": "draftsman",
	"draughtsmen": "draftsmen", "kerbside": "curbside", "kerbstone": "curbstone",
	"manoeuvring": "maneuvering", "manoeuvred": "maneuvered", "manoeuvres": "maneuvers",
	"manoeuvrable": "maneuverable",
	// Round 8 (split H): five-letter -our words, which the suffix rule
	// leaves alone (four, tour, flour), and whisky. Not "storey": a
	// floor, and "story" is most often a tale.
	"odour": "odor", "odours": "odors", "odourless": "odorless", "whisky": "whiskey",
	"whiskies": "whiskeys",
}

// americanWord is w in American spelling when a systematic British
// spelling shows (colour, catalogue, organise, analyse, centre, anaemia,
// oestrogen, travelled) or w is listed in spellingWords; other words are
// returned as they are. plain is whether the word was written in lower
// case: the ae/oe rules leave proper names alone ("Michael", "Caesar").
func americanWord(w string, plain bool) string {
	if a, ok := spellingWords[w]; ok {
		return a
	}
	n := len(w)
	if n < 5 || !isLetters(w) {
		return w
	}
	for _, s := range []struct{ from, to string }{
		{"isations", "izations"}, {"isation", "ization"}, {"ising", "izing"}, {"ised", "ized"},
		{"isers", "izers"}, {"iser", "izer"}, {"ises", "izes"}, {"ise", "ize"},
		{"ysing", "yzing"}, {"ysed", "yzed"}, {"yser", "yzer"}, {"yse", "yze"},
	} {
		// organise, analyse; "prise", "raise" and "noise" are too short.
		if strings.HasSuffix(w, s.from) && n-len(s.from) >= 3 && n >= 6 {
			return w[:n-len(s.from)] + s.to
		}
	}
	if strings.HasSuffix(w, "ogue") && n >= 7 {
		return w[:n-2] // catalogue, dialogue; not vogue, rogue
	}
	for _, s := range []string{"ourites", "ourite", "ourable", "ourful", "ouring", "oured", "ourer", "ours", "oury", "our"} {
		// colour, favourite, honourable, savoury; not four, tour, hour,
		// flour.
		if strings.HasSuffix(w, s) && n-len(s) >= 3 {
			return w[:n-len(s)] + "or" + s[3:]
		}
	}
	for _, s := range []string{"tres", "tre", "bres", "bre", "gres", "gre", "chres", "chre"} {
		// centre, theatre, metre, fibre, calibre, meagre, ochre; timbre
		// is not timber, and "ogre", "acre", "massacre" keep theirs.
		if strings.HasSuffix(w, s) && n-len(s) >= 2 && !strings.HasPrefix(w, "timbre") {
			c, plural := strings.CutSuffix(s, "s")
			w = w[:n-len(s)] + strings.TrimSuffix(c, "re") + "er"
			if plural {
				w += "s"
			}
			return w
		}
	}
	for _, s := range []string{"elled", "elling", "eller", "ellers", "ellor", "ellous", "alled", "alling"} {
		// travelled, modelling, counsellor, marvellous, signalled.
		if strings.HasSuffix(w, s) && n >= 8 {
			return w[:n-len(s)+1] + s[2:]
		}
	}
	if plain && n >= 6 {
		// anaemia, paediatric, aesthetic; oestrogen, foetus, diarrhoea.
		if i := strings.Index(w, "ae"); i >= 0 && i+2 < n {
			return w[:i] + w[i+1:]
		}
		if i := strings.Index(w, "oe"); i >= 0 && i+2 < n && !(i+3 == n && w[n-1] == 's') {
			return w[:i] + w[i+1:]
		}
	}
	return w
}

// variantKey is n's folded key with every word in American spelling, ""
// when that changes nothing (or n is an acronym or code).
func variantKey(n *nameInfo, text string) string {
	if n.acro || n.ident || n.file || len(n.content) == 0 {
		return ""
	}
	plain := strings.IndexFunc(text, unicode.IsUpper) < 0
	changed := false
	ws := make([]string, len(n.content))
	for i, w := range n.content {
		ws[i] = americanWord(w, plain)
		if !plain {
			ws[i] = translitWord(slavicWord(ws[i]))
		}
		changed = changed || ws[i] != w
	}
	if !changed {
		return ""
	}
	slices.Sort(ws)
	return strings.Join(slices.Compact(ws), " ")
}

// slavicWord writes a Russian or other Slavic surname of a capitalised
// name in one transliteration ("Tchaikovsky", "Strawinsky",
// "Rachmaninoff", "Shostakovitch", "Dostoyevsky", "Gorbachov",
// "Kandinskij" as "chaikovsky", "stravinsky", "rachmaninov",
// "shostakovich", "dostoevsky", "gorbachev", "kandinsky"): the
// transliterations of one name differ in these letters. Other words are
// returned as they are.
func slavicWord(w string) string {
	if len(w) < 6 || !isLetters(w) {
		return w
	}
	for _, s := range [][2]string{{"skij", "sky"}, {"skiy", "sky"}, {"ski", "sky"}, {"itch", "ich"}, {"ieff", "iev"}, {"eff", "ev"}, {"off", "ov"}, {"ow", "ov"}} {
		if strings.HasSuffix(w, s[0]) {
			w = w[:len(w)-len(s[0])] + s[1]
			break
		}
	}
	slavic := false
	for _, suf := range []string{"sky", "ov", "ev", "ich", "enko", "ova", "eva"} {
		slavic = slavic || strings.HasSuffix(w, suf)
	}
	if !slavic {
		return w
	}
	w = strings.ReplaceAll(w, "tch", "ch")
	w = strings.ReplaceAll(w, "w", "v")
	w = strings.ReplaceAll(w, "ou", "u")
	for _, s := range []string{"chov", "shov", "zhov"} {
		if strings.HasSuffix(w, s) {
			w = w[:len(w)-2] + "ev" // Gorbachov, Khrushchov
		}
	}
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		if w[i] == 'y' && i > 0 && i+1 < len(w) && strings.IndexByte("aeiou", w[i-1]) >= 0 && strings.IndexByte("aeiou", w[i+1]) >= 0 {
			continue // Dostoyevsky
		}
		b.WriteByte(w[i])
	}
	return b.String()
}

// translitWord writes a word of a capitalised name (5 letters or more)
// in one transliteration of the Russian letters that English writes two
// ways: е first as "e" ("Yevgeny" / "Evgeny", "Yekaterinburg"), ий and ей
// last as "i" ("Dmitry" / "Dmitri", "Sergey" / "Sergei", "Nikolay"),
// ья and ия as "ia" ("Tatyana" / "Tatiana", "Natalya"). A final -y that
// makes an English word is kept ("Terry", "Harry" are not "Terri",
// "Harri"), and so are words that read the same either way.
func translitWord(w string) string {
	n := len(w)
	if n < 5 || !isLetters(w) {
		return w
	}
	if strings.HasPrefix(w, "ye") && strings.IndexByte("aeiouy", w[2]) < 0 {
		w = w[1:] // Yevgeny, Yekaterinburg, Yeltsin
	}
	n = len(w)
	switch {
	case strings.HasSuffix(w, "iy"), strings.HasSuffix(w, "ey") && n >= 6, strings.HasSuffix(w, "ay") && n >= 6:
		// Dmitriy, Sergey, Nikolay ("Casey", "Bombay" are five letters).
		w = w[:n-1] + "i"
		if strings.HasSuffix(w, "ii") {
			w = w[:len(w)-1]
		}
	case w[n-1] == 'y' && strings.IndexByte("aeiouy", w[n-2]) < 0 && !englishWords().has(w):
		w = w[:n-1] + "i" // Dmitry, Gorky, Nizhny
	}
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		if w[i] == 'y' && i > 0 && i+1 < len(w) && w[i+1] == 'a' && strings.IndexByte("aeiouy", w[i-1]) < 0 {
			b.WriteByte('i') // Tatyana, Natalya
			continue
		}
		b.WriteByte(w[i])
	}
	return b.String()
}

// spellingVariant reports whether a and b are one name in British and
// American spelling ("colour model" / "color model").
func spellingVariant(a, b *nameInfo) bool {
	ka, kb := a.variant, b.variant
	if ka == "" {
		ka = a.folded
	}
	if kb == "" {
		kb = b.folded
	}
	return (a.variant != "" || b.variant != "") && ka == kb
}

// nameParticles are the lower-case words inside a person's name ("Leonardo
// da Vinci", "Ludwig van Beethoven").
var nameParticles = map[string]bool{
	"da": true, "de": true, "di": true, "del": true, "della": true, "der": true, "van": true,
	"von": true, "la": true, "le": true, "du": true, "dos": true, "das": true, "ten": true,
	"ter": true, "bin": true, "ibn": true, "al": true, "el": true, "y": true, "st": true,
}

// personName reports whether long is a person's full name and short its
// surname ("Alan Turing" / "Turing", "J. R. R. Tolkien" / "Tolkien",
// "Leonardo da Vinci" / "da Vinci"): long is short with one to three words
// before it, each a given name (givenNames) or an initial, every word of
// both capitalised but the particles.
func personName(short, long *nameInfo) bool {
	if !short.upper || len(short.all) == 0 || len(long.all) <= len(short.all) || len(long.all)-len(short.all) > 3 {
		return false
	}
	if !slices.Equal(long.all[len(long.all)-len(short.all):], short.all) || !capitalisedName(short.text) || !capitalisedName(long.text) {
		return false
	}
	last := []rune(short.all[len(short.all)-1])
	if len(last) < 3 || nameParticles[short.all[len(short.all)-1]] {
		return false
	}
	for _, w := range long.all[:len(long.all)-len(short.all)] {
		if len([]rune(w)) == 1 || givenNames()[w] || moreGivenNames()[w] || nameParticles[w] {
			continue
		}
		return false
	}
	return !nameParticles[long.all[0]]
}

// soleSurname reports whether short, a surname, can only be that
// person's: one word that is no English word, country, city of the
// gazetteer or vendor, used by no concept's name in the vault but the
// two compared (vocab: the vault's words by the concepts using them; nil:
// unknown, so no; merge_concepts, which judges a few concepts, gives an
// empty one: it accepts what analyze_duplicates proposes).
func soleSurname(short *nameInfo, vocab map[string][]int32) bool {
	if vocab == nil || len(short.content) != 1 || short.acro {
		return false
	}
	w := short.content[0]
	// Two names use the surname: the two compared. A thing named after
	// the person ("Spinoza Prize") is no other meaning of it.
	if countries[w] || leadingQualifiers[w] || englishWords().has(w) || len(vocab[w])-len(vocab[eponymKey+w]) > 2 {
		return false
	}
	return !isCity(short)
}

// capitalisedName reports whether every word of text that is not a name
// particle starts with an upper-case letter, and the text has no digits.
func capitalisedName(text string) bool {
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '.' || r == ',' || r == '-' }) {
		r := []rune(f)
		if nameParticles[strings.ToLower(f)] && f == strings.ToLower(f) {
			continue
		}
		if !unicode.IsUpper(r[0]) || strings.IndexFunc(f, unicode.IsDigit) >= 0 {
			return false
		}
	}
	return true
}

// oneWordAcronym reports whether the acronym a (2-5 letters) is made of
// letters of the one word w in order: its first letter, then letters that
// each start a syllable after a vowel ("TB": tuberculosis, "ECG":
// electrocardiogram, "TV": television). Loose by nature: a judgement on it
// stands only with context.
func oneWordAcronym(a, w []rune) bool {
	if len(a) < 2 || len(a) > 5 || len(w) < 2*len(a)+2 || a[0] != w[0] {
		return false
	}
	vowel := func(r rune) bool { return strings.ContainsRune("aeiouy", r) }
	i := 1
	for p := 1; p < len(w) && i < len(a); p++ {
		if w[p] == a[i] && vowel(w[p-1]) {
			i++
		}
	}
	return i == len(a)
}

// acronymTokens are the positions in n.all of the words written as
// acronyms in a name of two words or more ("LRU" of "LRU cache", "US" of
// "U.S. Navy", "NN" of "k-NN", "kNN" of "kNN graph"): 2-5 letters, all
// upper case or two capitals and at least half (acronymCase).
func acronymTokens(text string, all []string) []int {
	if len(all) < 2 {
		return nil
	}
	var out []int
	if strings.ContainsRune(text, '/') {
		return nil // "A/B testing": two letters, not an acronym of words
	}
	fields := strings.FieldsFunc(joinInitials(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(fields) != len(all) {
		return nil
	}
	for i, f := range fields {
		if r := []rune(f); len(r) >= 2 && len(r) <= 5 && isLetters(f) && acronymCase(f) {
			out = append(out, i)
		}
	}
	return out
}

// acronymCase reports whether the word f is written as an acronym: all
// upper case, or two capitals or more and at least half ("kNN", "IoT").
func acronymCase(f string) bool {
	upper, n := 0, 0
	for _, r := range f {
		n++
		if unicode.IsUpper(r) {
			upper++
		}
	}
	return upper == n || upper >= 2 && 2*upper >= n
}

// initialsMatch reports whether the acronym a spells the initials of ws,
// every word but a function word giving its first letter and a function
// word its first letter or none ("UC": University of California, "SoC":
// system on a chip).
func initialsMatch(a []rune, ws []string) bool {
	if len(ws) == 0 {
		return len(a) == 0
	}
	w := []rune(ws[0])
	if len(a) > 0 && a[0] == w[0] && initialsMatch(a[1:], ws[1:]) {
		return true
	}
	return functionWords[ws[0]] && initialsMatch(a, ws[1:])
}

// partialAcronym reports whether short writes as an acronym a run of two
// words or more of long, the rest of the two names equal ("LRU cache" /
// "least recently used cache", "U.S. Navy" / "United States Navy",
// "k-NN" / "k nearest neighbors", "UC Berkeley" / "University of
// California, Berkeley").
func partialAcronym(short, long *nameInfo) bool {
	for _, i := range short.acroAt {
		a := []rune(short.all[i])
		pre, suf := short.all[:i], short.all[i+1:]
		if len(pre)+len(suf) == 0 || len(long.all) < len(pre)+len(suf)+2 {
			continue
		}
		if !slices.Equal(long.all[:len(pre)], pre) || !slices.Equal(long.all[len(long.all)-len(suf):], suf) {
			continue
		}
		run := long.all[len(pre) : len(long.all)-len(suf)]
		if len(run) >= 2 && initialsMatch(a, run) {
			return true
		}
	}
	return false
}

// runKeys are the partial-acronym keys of n's runs of two words or more
// with a word before or after them: the words before, the run's initials
// (each function word with and without its letter), the words after.
func runKeys(n *nameInfo) []string {
	ws := n.all
	if len(ws) < 3 || len(ws) > 7 {
		return nil
	}
	var out []string
	for i := 0; i < len(ws); i++ {
		for k := i + 2; k <= len(ws); k++ {
			if i == 0 && k == len(ws) {
				continue
			}
			for _, ini := range runInitials(ws[i:k]) {
				out = append(out, partialKey(ws[:i], ini, ws[k:]))
			}
		}
	}
	return out
}

// runInitials are the initials ws may be written as: every word's first
// letter, a function word's given or left out.
func runInitials(ws []string) []string {
	out := []string{""}
	for _, w := range ws {
		first := initialOf(w)
		n := len(out)
		for j := 0; j < n; j++ {
			if functionWords[w] {
				out = append(out, out[j])
			}
			out[j] += first
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func partialKey(pre []string, ini string, suf []string) string {
	return strings.Join(pre, " ") + "|" + ini + "|" + strings.Join(suf, " ")
}

// acronymKeys are the partial-acronym keys of a name with an acronym
// among its words: the words before, its letters, the words after.
func acronymKeys(n *nameInfo) []string {
	var out []string
	for _, i := range n.acroAt {
		out = append(out, partialKey(n.all[:i], n.all[i], n.all[i+1:]))
	}
	return out
}

// oneWordKeys are the oneWord index keys of a one-word name of 6+
// letters: its first letter with each later letter that follows a vowel.
func oneWordKeys(w string) []string {
	r := []rune(w)
	if len(r) < 6 || !isLetters(w) {
		return nil
	}
	var out []string
	for p := 1; p < len(r); p++ {
		if strings.ContainsRune("aeiouy", r[p-1]) {
			k := string([]rune{r[0], r[p]})
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// oneWordExpansions adds to l (the concepts whose initials spell the
// acronym w) the one-word names w is an acronym of (oneWordAcronym).
func (x *dupIndex) oneWordExpansions(w string, l []int32) []int32 {
	a := []rune(w)
	if len(a) < 2 || len(a) > 5 {
		return l
	}
	cand := x.oneWord[string(a[:2])]
	if len(cand) > 4*bucketCap {
		return l
	}
	out := l
	for _, c := range cand {
		if slices.Contains(out, c) {
			continue
		}
		if slices.ContainsFunc(x.names[c], func(n nameInfo) bool {
			return len(n.content) == 1 && oneWordAcronym(a, []rune(n.content[0]))
		}) {
			if len(out) == len(l) {
				out = slices.Clone(l)
			}
			out = append(out, c)
		}
	}
	return out
}

//go:embed givennames.txt
var givenNamesText string

//go:embed givennames_more.txt
var moreGivenNamesText string

// givenNames are the words a person's name may have before the surname
// (givennames.txt), as written and as the name folding writes them
// (singular: "james" is "jame" in nameInfo.all); read on first use.
var givenNames = sync.OnceValue(func() map[string]bool { return parseGivenNames(givenNamesText) })

// moreGivenNames are the given names of givennames_more.txt: a name
// whose given name is only there is a person's when its surname can mean
// nothing else (see newGivenName).
var moreGivenNames = sync.OnceValue(func() map[string]bool { return parseGivenNames(moreGivenNamesText) })

// parseGivenNames reads a given-name list: words separated by white
// space, lines starting with # skipped; each word as written and as the
// name folding writes it.
func parseGivenNames(text string) map[string]bool {
	m := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		for _, w := range strings.Fields(line) {
			m[w] = true
			m[singular(w)] = true
		}
	}
	return m
}

// newGivenName reports whether long, a person's full name of short
// (personName), has a word before the surname that only moreGivenNames
// holds.
func newGivenName(short, long *nameInfo) bool {
	for _, w := range long.all[:len(long.all)-len(short.all)] {
		if moreGivenNames()[w] && !givenNames()[w] {
			return true
		}
	}
	return false
}

// countries are names of countries: a country and a river, sea, lake or
// mountain named after it (or it after them) are two places ("Congo" /
// "Congo River", "Niger" / "Niger River", "Kenya" / "Mount Kenya").
var countries = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Split(`afghanistan albania algeria andorra angola argentina armenia australia austria azerbaijan
bahamas bahrain bangladesh barbados belarus belgium belize benin bhutan bolivia bosnia botswana brazil brunei
bulgaria burkina burundi cambodia cameroon canada chad chile china colombia comoros congo croatia cuba cyprus
czechia denmark djibouti dominica ecuador egypt eritrea estonia eswatini ethiopia fiji finland france gabon
gambia georgia germany ghana greece grenada guatemala guinea guyana haiti honduras hungary iceland india
indonesia iran iraq ireland israel italy jamaica japan jordan kazakhstan kenya kiribati kosovo kuwait
kyrgyzstan laos latvia lebanon lesotho liberia libya liechtenstein lithuania luxembourg madagascar malawi
malaysia maldives mali malta mauritania mauritius mexico micronesia moldova monaco mongolia montenegro morocco
mozambique myanmar namibia nauru nepal netherlands nicaragua niger nigeria norway oman pakistan palau panama
paraguay peru philippines poland portugal qatar romania russia rwanda samoa senegal serbia seychelles
singapore slovakia slovenia somalia spain sudan suriname sweden switzerland syria taiwan tajikistan tanzania
thailand togo tonga trinidad tunisia turkey turkmenistan tuvalu uganda ukraine uruguay uzbekistan vanuatu
venezuela vietnam yemen zambia zimbabwe`, "\n") {
		for _, w := range strings.Fields(c) {
			m[w] = true
		}
	}
	return m
}()

// geographicWords are qualifier words that name a place of their own
// after (or before) a country's name.
var geographicWords = map[string]bool{
	"river": true, "sea": true, "desert": true, "ocean": true, "lake": true, "mountain": true,
	"mount": true, "mt": true, "island": true, "city": true, "valley": true, "basin": true, "gulf": true,
}

// countryPlace reports whether long is the one-word country short, or a
// region of the gazetteer (a US state, a province), with a geographic word
// ("Congo River", "Mount Kenya", "Wisconsin River", "Lake Ontario").
func countryPlace(short, long *nameInfo) bool {
	if len(short.content) == 0 || len(short.content) >= len(long.content) {
		return false
	}
	if !(len(short.content) == 1 && countries[short.content[0]]) && !places().region[strings.Join(short.content, " ")] {
		// Round 7: a region of the gazetteer too ("Wisconsin" /
		// "Wisconsin River", "Ontario" / "Lake Ontario").
		return false
	}
	for _, w := range long.content {
		if geographicWords[w] {
			return true
		}
	}
	return false
}

// dottedWord reports whether text is one word ended by a period ("Mass.",
// "Calif."): an abbreviation, not the word it spells.
func dottedWord(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasSuffix(t, ".") && strings.Count(t, ".") == 1 && !strings.ContainsAny(t, " -") && len(t) > 2
}

// Numbers written as words and as digits (round 5): "4WD" is four-wheel
// drive, "G7" the Group of Seven, "B2C" business-to-consumer, "WW2" World
// War II, "Formula One" Formula 1.

// numberWords are the cardinal numbers written as words, by their digits.
var numberWords = map[string]string{
	"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
	"seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
	"first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5",
}

// romanDigits are the roman numerals of romanNumerals, by their digits.
var romanDigits = map[string]string{"i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5", "vi": "6", "vii": "7", "viii": "8", "ix": "9", "x": "10"}

// digitAcronym reports whether a one-word name is an acronym with digits:
// 2-6 letters and digits, one digit at least and one letter, no more
// lower-case letters than upper-case ones ("4WD", "B2C", "G7", "T2D",
// "PS4"); not a numeronym ("k8s", "i18n": lower case).
func digitAcronym(text string) bool {
	if utf8.RuneCountInString(text) < 2 || utf8.RuneCountInString(text) > 6 {
		return false
	}
	upper, lower, digits := 0, 0, 0
	for _, r := range text {
		switch {
		case unicode.IsUpper(r):
			upper++
		case unicode.IsLower(r):
			lower++
		case unicode.IsDigit(r):
			digits++
		default:
			return false
		}
	}
	return digits > 0 && upper > 0 && lower <= upper
}

// wordDigits is the digits a word stands for in an acronym: a number
// written in digits ("1" of Formula 1), as a word ("four", "seven") or a
// roman numeral after the first word ("II" of World War II); "to" and
// "for" read as 2 and 4 ("B2B", "P2P"). "" for other words.
func wordDigits(w string, first bool) string {
	switch {
	case w == "to":
		return "2"
	case w == "for":
		return "4"
	case numberWords[w] != "":
		return numberWords[w]
	case romanDigits[w] != "" && !first:
		return romanDigits[w]
	}
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return ""
		}
	}
	return w
}

// digitInitials are the initials of ws (2-6 words) with a number word's
// digits in place of its letter (function words given or not), those
// with a digit only: the keys a digit acronym looks up.
func digitInitials(ws []string) []string {
	if len(ws) < 2 || len(ws) > 6 || !slices.ContainsFunc(ws, func(w string) bool { return wordDigits(w, false) != "" }) {
		return nil
	}
	out := []string{""}
	for i, w := range ws {
		alts := []string{initialOf(w)}
		if d := wordDigits(w, i == 0); d != "" && d != alts[0] {
			alts = append(alts, d)
		}
		if functionWords[w] {
			alts = append(alts, "")
		}
		var next []string
		for _, o := range out {
			for _, a := range alts {
				next = append(next, o+a)
			}
		}
		out = next
	}
	out = slices.DeleteFunc(out, func(k string) bool { return strings.IndexFunc(k, unicode.IsDigit) < 0 || len(k) < 2 })
	slices.Sort(out)
	return slices.Compact(out)
}

// digitInitialsMatch reports whether the acronym a (lower case, digits
// among its letters) is the initials of ws, a word giving its digits in
// place of its first letter, function words giving their letter or not.
func digitInitialsMatch(a []rune, ws []string, first bool) bool {
	if len(ws) == 0 {
		return len(a) == 0
	}
	w := []rune(ws[0])
	if len(a) > 0 && a[0] == w[0] && digitInitialsMatch(a[1:], ws[1:], false) {
		return true
	}
	if d := []rune(wordDigits(ws[0], first)); len(d) > 0 && len(a) >= len(d) && string(a[:len(d)]) == string(d) && digitInitialsMatch(a[len(d):], ws[1:], false) {
		return true
	}
	return functionWords[ws[0]] && digitInitialsMatch(a, ws[1:], false)
}

// spelledNumbers is a name's numbers with those written as words too
// ("Formula One": 1), digits for roman numerals: what the version veto
// compares once one name writes a number as a word and the other in
// digits.
func spelledNumbers(n *nameInfo) []string {
	var out []string
	for _, d := range n.numbers {
		if r := romanDigits[d]; r != "" {
			d = r
		}
		out = append(out, strings.TrimLeft(d, "0"))
	}
	for _, w := range n.all {
		if d := numberWords[w]; d != "" {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

// numbersAgree reports whether two names' numbers are one once written
// alike: "Formula 1" / "Formula One", "WW2" / "World War II" (digits of a
// digit acronym against the other's number words), "B2C" / "business to
// consumer" (its digit a "to").
func numbersAgree(a, b *nameInfo) bool {
	if slices.Equal(spelledNumbers(a), spelledNumbers(b)) {
		return true
	}
	for _, p := range [][2]*nameInfo{{a, b}, {b, a}} {
		if w := acronymWord(p[0]); w != "" && strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			return digitInitialsMatch([]rune(w), p[1].all, true) || slices.ContainsFunc(acronymSources(p[1]), func(ws []string) bool {
				return digitInitialsMatch([]rune(w), ws, true)
			})
		}
	}
	return false
}

// numberFolded is the folded key with numbers written as words in digits
// ("formula 1" of Formula One) and a number of dimensions written out
// ("3 dimensional printing" of 3D printing and of three-dimensional
// printing), "" when no word is a number.
func numberFolded(n *nameInfo) string {
	changed := false
	ws := make([]string, 0, len(n.content)+1)
	for i, w := range n.content {
		if d, ok := dimensions(w); ok {
			ws, changed = append(ws, d, "dimensional"), true
			continue
		}
		if d := wordDigits(w, i == 0 && len(n.all) > 0 && n.all[0] == w); d != "" && d != w && w != "to" && w != "for" {
			w, changed = d, true
		}
		ws = append(ws, w)
	}
	if !changed {
		return ""
	}
	slices.Sort(ws)
	return strings.Join(slices.Compact(ws), " ")
}

// dimensions is the number of a word of digits and a "d" ("3d", "2d"),
// which is read as that many dimensions.
func dimensions(w string) (string, bool) {
	d, ok := strings.CutSuffix(w, "d")
	if !ok || d == "" || strings.IndexFunc(d, func(r rune) bool { return !unicode.IsDigit(r) }) >= 0 {
		return "", false
	}
	return d, true
}

// initialOf is what a word gives an acronym: its first letter, or all its
// digits ("Windows 10" is W10, not W1).
func initialOf(w string) string {
	if strings.IndexFunc(w, func(r rune) bool { return !unicode.IsDigit(r) }) < 0 {
		return w
	}
	return string([]rune(w)[:1])
}

// nationalities are adjectives of countries and peoples that may come
// before the name of a thing of that country ("German Bundesliga").
var nationalities = map[string]bool{
	"american": true, "british": true, "english": true, "scottish": true, "welsh": true, "irish": true,
	"german": true, "french": true, "italian": true, "spanish": true, "portuguese": true, "dutch": true,
	"belgian": true, "swiss": true, "austrian": true, "swedish": true, "norwegian": true, "danish": true,
	"finnish": true, "icelandic": true, "polish": true, "czech": true, "slovak": true, "hungarian": true,
	"romanian": true, "bulgarian": true, "greek": true, "turkish": true, "russian": true, "ukrainian": true,
	"chinese": true, "japanese": true, "korean": true, "indian": true, "pakistani": true, "thai": true,
	"vietnamese": true, "indonesian": true, "australian": true, "canadian": true, "mexican": true,
	"brazilian": true, "argentine": true, "argentinian": true, "chilean": true, "colombian": true,
	"peruvian": true, "egyptian": true, "nigerian": true, "kenyan": true, "israeli": true, "iranian": true,
	"saudi": true, "scandinavian": true, "european": true,
}

// coinedName reports whether a name is one capitalised word that is no
// English word, no country and no acronym, or two such words
// (coinedWords): a coined or proper name ("Bundesliga", "Heathrow",
// "Primeira Liga"), which a nationality before describes rather than
// narrows.
func coinedName(n *nameInfo) bool {
	if len(n.content) == 2 {
		return coinedWords(n)
	}
	if len(n.content) != 1 || !initialUpper(n.text) || n.acro || digitAcronym(n.text) {
		return false
	}
	w := n.content[0]
	return len([]rune(w)) >= 3 && !countries[w] && !englishWords().has(w)
}

// coinedWords reports whether a name of two words is written capitalised
// and neither word is an English word or a country, each of 4 letters or
// more ("Primeira Liga", "Eredivisie Liga"): a coined name too. Shorter
// words are left out because the word list starts at 4 letters.
func coinedWords(n *nameInfo) bool {
	if !capitalisedName(n.text) {
		return false
	}
	for _, w := range n.content {
		if len([]rune(w)) < 4 || !isLetters(w) || countries[w] || englishWords().has(w) {
			return false
		}
	}
	return true
}

// Kinds of qualifier in parentheses (parenQualifier).
const (
	qualUnknown = iota
	qualClass   // what the name is: "Mercury (planet)", "Ruby (programming language)"
	qualOther   // another thing of that name: "Bauhaus (band)", "Spectre (film)"
)

// classQualifiers name the kind of thing a name is when the name is
// also a word or another thing's name: the bare name, in a vault that
// writes about that kind of thing, is it.
var classQualifiers = map[string]bool{
	"planet": true, "dwarf planet": true, "moon": true, "star": true, "constellation": true,
	"asteroid": true, "comet": true, "galaxy": true, "programming language": true, "language": true,
	"software": true, "operating system": true, "database": true, "framework": true, "library": true,
	"protocol": true, "algorithm": true, "element": true, "chemical element": true, "mineral": true,
	"genus": true, "plant": true,
}

// otherQualifiers are the qualifiers of works, people, organisations and
// products named after something else (Wikipedia's common
// disambiguators): "X (band)" is a band called X, not X.
var otherQualifiers = map[string]bool{
	"band": true, "film": true, "movie": true, "song": true, "album": true, "single": true, "ep": true,
	"novel": true, "book": true, "play": true, "musical": true, "opera": true, "poem": true,
	"painting": true, "sculpture": true, "magazine": true, "journal": true, "newspaper": true,
	"comic": true, "comics": true, "manga": true, "anime": true, "tv series": true, "series": true,
	"tv": true, "tv show": true, "show": true, "tv program": true, "tv programme": true,
	"episode": true, "video game": true, "game": true, "franchise": true, "character": true,
	"singer": true, "rapper": true, "musician": true, "actor": true, "actress": true, "artist": true,
	"composer": true, "writer": true, "author": true, "poet": true, "footballer": true,
	"wrestler": true, "politician": true, "surname": true, "name": true, "given name": true,
	"horse": true, "racehorse": true, "dog": true, "ship": true, "yacht": true, "locomotive": true,
	"train": true, "rail": true, "brand": true, "company": true, "restaurant": true, "hotel": true,
	"club": true, "team": true, "charity": true, "organization": true, "organisation": true,
	"tv network": true, "network": true, "channel": true, "tv channel": true, "radio station": true,
	"website": true, "browser": true, "web browser": true, "app": true, "gang": true, "mythology": true,
	"deity": true, "god": true, "goddess": true, "unit": true, "hat": true, "dance": true,
	"cocktail": true, "typeface": true, "font": true, "record label": true, "label": true,
	"publisher": true, "podcast": true, "sitcom": true, "soundtrack": true, "opera house": true,
	"board game": true, "card game": true, "toy": true, "mascot": true,
}

// parenQualifier says what q's parenthesised qualifier makes of it: its
// class, another thing named like it (a work, a person, an
// organisation; or a proper name, "STD (C++)", "Ent (Tolkien)": that
// name's world), or unknown.
func parenQualifier(q *nameInfo) int {
	k := strings.Join(q.qual, " ")
	switch {
	case classQualifiers[k]:
		return qualClass
	case otherQualifiers[k]:
		return qualOther
	}
	if i := strings.LastIndexByte(q.text, '('); i >= 0 {
		inner := strings.TrimSuffix(strings.TrimSpace(q.text[i+1:]), ")")
		if inner != "" && (unicode.IsUpper([]rune(inner)[0]) || strings.ContainsAny(inner, "+#")) && len(strings.Fields(inner)) == 1 &&
			!countries[strings.ToLower(stripAccents(inner))] {
			return qualOther
		}
	}
	return qualUnknown
}

// categoryNouns say what kind of thing a name is, after it ("Changi
// Airport", "measles virus", "Jurassic period"); leadingCategories before
// it ("dwarf planet Ceres", "supercontinent Pangaea"). General knowledge
// of English, not a labelled set's words.
var (
	categoryNouns = map[string]bool{
		"virus": true, "fever": true, "infection": true, "period": true, "epoch": true, "era": true,
		"national park": true, "park": true, "garden": true, "botanical garden": true, "airport": true,
		"international airport": true, "space station": true, "station": true, "rover": true, "probe": true,
		"spacecraft": true, "space probe": true, "telescope": true, "space telescope": true,
		"observatory": true, "festival": true, "music festival": true, "museum": true, "gallery": true,
		"art gallery": true, "volcano": true, "strait": true, "cave": true, "caves": true, "delta": true,
		"canyon": true, "falls": true, "glacier": true, "reef": true, "peninsula": true, "archipelago": true,
		"style": true, "movement": true, "art movement": true, "championship": true, "tournament": true,
		"index": true, "stock index": true, "stock market": true, "stock exchange": true, "dynasty": true,
		"empire": true, "cathedral": true, "palace": true, "castle": true, "temple": true, "abbey": true,
		"bridge": true, "tower": true, "stadium": true, "arena": true, "bug": true, "vulnerability": true,
		"worm": true, "malware": true, "exploit": true, "headache": true, "flask": true, "audio editor": true,
		"editor": true, "browser": true, "web browser": true, "api platform": true, "api": true,
		"text editor": true, "ide": true, "compiler": true, "interpreter": true, "database": true,
		// A company's group or holding: "Rakuten Group", "Tencent Holdings",
		// but also "Lie group", "Magna Carta Holdings" (named after
		// another thing) — the context says.
		"group": true, "holding": true, "limited": true,
	}
	// lowerCategories may follow a word written in lower case.
	lowerCategories = map[string]bool{
		"virus": true, "fever": true, "infection": true, "period": true, "epoch": true, "era": true,
	}
	leadingCategories = map[string]bool{
		"dwarf planet": true, "planet": true, "moon": true, "asteroid": true, "comet": true,
		"supercontinent": true, "continent": true, "volcano": true, "mount": true, "lake": true,
		"river": true, "desert": true, "composer": true, "painter": true, "philosopher": true,
		"poet": true, "novelist": true, "physicist": true, "chemist": true, "mathematician": true,
	}
)

// categoryNoun reports whether long is short, a name of one word, with
// what it is before or after it (categoryNouns, leadingCategories). The
// name is a proper one (capitalised) or no English word ("dengue"), and
// no short form of the lexicon; a word in lower case takes only a
// disease's or an age's noun ("measles virus", but not "graph
// database"); a city of the gazetteer is no such name ("Salzburg
// Festival", "Osaka Castle" are things in the city), nor is a country.
func categoryNoun(short, long *nameInfo) bool {
	if len(short.content) != 1 || len(long.content) < 2 || len(long.content) > 3 || short.acro || countries[short.content[0]] {
		return false
	}
	w := short.content[0]
	if isCity(short) || lexicon()[w] != nil {
		return false
	}
	if !initialUpper(short.text) && englishWords().has(w) {
		n := len(long.content)
		return long.content[0] == w && n == 2 && lowerCategories[long.content[1]]
	}
	n := len(long.content)
	switch {
	case long.content[n-1] != short.content[0] && long.content[0] == short.content[0]:
		return categoryNouns[strings.Join(long.content[1:], " ")]
	case long.content[n-1] == short.content[0]:
		return leadingCategories[strings.Join(long.content[:n-1], " ")]
	}
	return false
}
