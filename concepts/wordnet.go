package concepts

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	_ "embed"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// wordNetGz is derived from the nouns of WordNet 3.0 (WORDNET.LICENSE
// carries Princeton's notice) by TestGenerateWordNet: the synonym sets
// whose lemmas are one another's spellings, acronyms, clips or longer
// forms, and the plurals the folding misses. Each line is a kind, a tab
// and lemmas separated by "|":
//
//	s  a synonym set; a lemma marked "~" has other senses, this one not
//	   the dominant ("AI": Army Intelligence, artificial intelligence,
//	   artificial insemination, none more used than the others)
//	v  lemmas with the same senses (spellings: "colour" / "color")
//	p  a plural and its singular ("bases" / "basis", "nemeses")
//	k… a kind noun of one or two words: some sense of it is a kind of
//	   artifact (a), disease (d), location (l), organization (o) or
//	   geological formation (g), by its hypernyms; the letters follow
//	   the "k", in upper case for its first sense's ("ka\tserver",
//	   "kaO\tboard", "kA\tchair"; wordNetKindLines)
//
//go:embed wordnet.txt.gz
var wordNetGz []byte

// wnSense is one synonym set of a lemma: its line in wordnet.txt.gz,
// and whether two lemmas of it are one concept without context (sure:
// the set is the dominant sense of the lemma, or the lemma has no other).
type wnSense struct {
	id   int32
	sure bool
	cat  uint8 // data.noun's category of the set (wnPerson, wnTime, …)
}

// Categories of data.noun whose sets name a bare proper name's one
// thing: a person ("Einstein" / "Albert Einstein") and a period
// ("Jurassic" / "Jurassic period"). A place's or a work's bare name is
// as often another thing of that name ("Amazon" / "Amazon River",
// "Yosemite" / "Yosemite Falls", "Genesis" / "Book of Genesis").
const (
	wnPerson = 18
	wnTime   = 28
)

// wordNet is the derived synonym sets by the folded keys of their lemmas;
// plural by the raw (unfolded) word of the plurals the folding misses.
// Keys are 64-bit FNV-1a hashes of those strings and the senses one flat
// slice, so that the structure holds no pointer for the collector to
// scan (1.7 MB live, against 4.7 MB with string keys); two keys of one hash would share their senses,
// which a pair still needs stringRelated and a set in common to use.
type wordNet struct {
	byKey, plural map[uint64]wnSpan
	all           []wnSense
	// kinds are the kind nouns, sorted: each the hash of the lemma's
	// folded key with its low ten bits replaced by its kind bits
	// (wnArtifact…, and those of its first sense shifted by
	// wnFirstSense), 8 bytes a lemma and no map (kindOf).
	kinds []uint64
}

// Kind bits of a kind noun ("k" lines), in the order of their letters;
// the first sense's are these shifted left by wnFirstSense.
const (
	wnArtifact = 1 << iota
	wnDisease
	wnLocation
	wnOrganization
	wnFormation
	wnFirstSense = iota
	wnKindMask   = 1<<(2*wnFirstSense) - 1
)

// wnKindLetters are the letters of the kind bits in "k" lines.
const wnKindLetters = "adlog"

// wnSpan is a key's senses: all[at : at+n].
type wnSpan struct{ at, n uint32 }

// wordNetData reads wordnet.txt.gz once, when analyze_duplicates first
// indexes names; it never changes.
var wordNetData = sync.OnceValue(func() *wordNet {
	wn, err := parseWordNet(wordNetGz)
	if err != nil {
		return &wordNet{} // the embedded file is fixed: a test reads it
	}
	return wn
})

// parseWordNet reads the gzipped lines described at wordNetGz.
func parseWordNet(gz []byte) (*wordNet, error) {
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	byKey, plural := map[uint64][]wnSense{}, map[uint64][]wnSense{}
	var kinds []uint64
	sc := bufio.NewScanner(r)
	var id int32
	for sc.Scan() {
		kind, lemmas, ok := strings.Cut(sc.Text(), "\t")
		if !ok || kind == "" || kind[0] == '#' {
			continue
		}
		if kind[0] == 'k' {
			var bits uint64
			for _, c := range kind[1:] {
				if i := strings.IndexRune(wnKindLetters, unicode.ToLower(c)); i >= 0 {
					bits |= 1 << i
					if unicode.IsUpper(c) {
						bits |= 1 << (i + wnFirstSense)
					}
				}
			}
			if k := analyseBase(lemmas); k != "" && bits != 0 {
				kinds = append(kinds, fnv64(k)&^wnKindMask|bits)
			}
			continue
		}
		id++
		cat, _ := strconv.Atoi(kind[1:])
		for i, l := range strings.Split(lemmas, "|") {
			sure := !strings.HasPrefix(l, "~")
			l = strings.TrimPrefix(l, "~")
			if kind == "p" && i == 0 {
				h := fnv64(strings.ToLower(l))
				plural[h] = append(plural[h], wnSense{id: id, sure: true})
				continue
			}
			if k := analyseBase(l); k != "" {
				byKey[fnv64(k)] = appendSense(byKey[fnv64(k)], wnSense{id, sure, uint8(cat)})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	wn := &wordNet{byKey: make(map[uint64]wnSpan, len(byKey)), plural: make(map[uint64]wnSpan, len(plural))}
	for _, m := range []struct {
		from map[uint64][]wnSense
		to   map[uint64]wnSpan
	}{{byKey, wn.byKey}, {plural, wn.plural}} {
		for h, l := range m.from {
			m.to[h] = wnSpan{uint32(len(wn.all)), uint32(len(l))}
			wn.all = append(wn.all, l...)
		}
	}
	wn.all = slices.Clip(wn.all)
	// Two lemmas of one folded key ("cave", "caves") are one kind noun
	// of both their kinds.
	slices.Sort(kinds)
	for i := 0; i < len(kinds); i++ {
		if n := len(wn.kinds); n > 0 && wn.kinds[n-1]&^wnKindMask == kinds[i]&^wnKindMask {
			wn.kinds[n-1] |= kinds[i] & wnKindMask
			continue
		}
		wn.kinds = append(wn.kinds, kinds[i])
	}
	wn.kinds = slices.Clip(wn.kinds)
	return wn, nil
}

// kindOf is the kind bits of the noun whose folded key is key, any
// sense's and, shifted by wnFirstSense, its first sense's (0: no kind
// noun, or not in WordNet).
func (wn *wordNet) kindOf(key string) uint64 {
	h := fnv64(key) &^ wnKindMask
	i, _ := slices.BinarySearchFunc(wn.kinds, h, func(e, h uint64) int {
		return cmp.Compare(e&^wnKindMask, h)
	})
	if i < len(wn.kinds) && wn.kinds[i]&^wnKindMask == h {
		return wn.kinds[i] & wnKindMask
	}
	return 0
}

// lookup is the senses of key in m.
func (wn *wordNet) lookup(m map[uint64]wnSpan, key string) []wnSense {
	sp, ok := m[fnv64(key)]
	if !ok {
		return nil
	}
	return wn.all[sp.at : sp.at+sp.n : sp.at+sp.n]
}

// appendSense adds s to l once (two lemmas of one set may fold alike).
func appendSense(l []wnSense, s wnSense) []wnSense {
	for i := range l {
		if l[i].id == s.id {
			l[i].sure = l[i].sure || s.sure
			return l
		}
	}
	return append(l, s)
}

// senses are the synonym sets name n is a lemma of: by its folded key,
// and, for a one-word name, as a plural the folding misses.
func (wn *wordNet) senses(n *nameInfo) []wnSense {
	s := wn.lookup(wn.byKey, n.folded)
	if len(n.content) == 1 {
		if p := wn.lookup(wn.plural, n.raw); len(p) > 0 {
			s = slices.Concat(s, p)
		}
	}
	return s
}

// wordNetPair reports whether WordNet holds names a and b in one synonym
// set and they are alike in writing (stringRelated); sure when the set
// is the dominant sense of both (else the context decides).
func wordNetPair(a, b *nameInfo, vocab map[string][]int32) (found, sure bool) {
	if a.folded == "" || b.folded == "" || a.folded == b.folded || dottedShortForm(a) || dottedShortForm(b) {
		return false, false
	}
	wn := wordNetData()
	sa := wn.senses(a)
	if len(sa) == 0 {
		return false, false
	}
	sb := wn.senses(b)
	short := a
	if bareProperName(b, a) {
		short = b
	}
	bare := bareProperName(short, a) || bareProperName(short, b)
	for _, x := range sa {
		for _, y := range sb {
			if x.id == y.id {
				found = true
				sure = sure || x.sure && y.sure && (!bare || x.cat == wnTime || x.cat == wnPerson && onlyPerson(short, vocab))
			}
		}
	}
	if !found || !stringRelated(a, b) {
		return false, false
	}
	if a.acro && len(a.acroWord) <= 2 || b.acro && len(b.acroWord) <= 2 {
		// As the lexicon's: a short form of one or two letters alone is
		// as often an acronym of something else ("TX", "TB").
		sure = false
	}
	if !sure && (bare || len(a.content) == 1 && len(b.content) == 1) {
		// A bare name WordNet knows in several senses, or two words of
		// several senses ("storey" / "story"): WordNet says nothing
		// the context would not ("Amazon" / "Amazon River").
		return false, false
	}
	return found, sure
}

// bareProperName reports whether short is one capitalised word (not an
// acronym) that long names with more words ("Amazon" / "Amazon River").
func bareProperName(short, long *nameInfo) bool {
	return len(short.content) == 1 && short.upper && !short.acro && len(long.content) > 1 && slices.Contains(long.content, short.content[0])
}

// wordNetPerson reports whether WordNet knows the name n as a person.
func wordNetPerson(n *nameInfo) bool {
	for _, s := range wordNetData().senses(n) {
		if s.cat == wnPerson {
			return true
		}
	}
	return false
}

// onlyPerson reports whether short, a surname WordNet knows as one
// person's, names nothing else the vault may mean: no vendor, country or
// city ("Tesla", "Bosch"), not possessive ("Graves'" is a disease), and
// used by no concept's name but the two compared ("Shannon" beside "River
// Shannon", "Goldman" beside "Goldman Sachs"; vocab nil: unknown, so no).
// soleSurname asks the same and also that it is no English word, which
// WordNet's person outweighs ("Bach", "Kant").
func onlyPerson(short *nameInfo, vocab map[string][]int32) bool {
	if vocab == nil || possessiveName(short.text) {
		return false
	}
	w := short.content[0]
	return !countries[w] && !leadingQualifiers[w] && len(vocab[properKey+w]) == 0 && !isCity(short)
}

// stringRelated reports whether two names are alike in writing, as one
// thing's names are and meaning-level synonyms ("car" / "automobile") are
// not: an acronym whose letters the other spells in order ("DNA" /
// deoxyribonucleic acid), a word in common ("Einstein" / "Albert
// Einstein", "neural net" / "neural network"), one inside the other
// ("flu" / "influenza", "math" / "mathematics"), a contraction ("dept"
// / "department") or two spellings ("colour" / "color", "bases" /
// "basis").
func stringRelated(a, b *nameInfo) bool {
	if a.acro != b.acro {
		s, l := a, b
		if b.acro {
			s, l = b, a
		}
		return subsequence([]rune(s.acroWord), []rune(l.full))
	}
	if da, db := wordDiff(a.content, b.content); len(da) < len(a.content) {
		// A word in common: the rest of one name is nothing, or one word
		// alike in writing ("net" / "network"; not "chemical analysis" /
		// "qualitative analysis").
		return len(da) == 0 || len(db) == 0 || len(da) == 1 && len(db) == 1 && writtenAlike(da[0], db[0], true)
	}
	if possessiveName(a.text) != possessiveName(b.text) {
		return false // "Parkinson's" / "Parkinsonism": a disease and a syndrome
	}
	return writtenAlike(a.raw, b.raw, len(a.content) == 1 && len(b.content) == 1)
}

// possessiveName reports whether text ends in a possessive ("Graves'",
// "Parkinson's"): a thing named after someone.
func possessiveName(text string) bool {
	text = strings.TrimSpace(text)
	return strings.HasSuffix(text, "'s") || strings.HasSuffix(text, "’s") || strings.HasSuffix(text, "'")
}

// writtenAlike reports whether x and y are one inside the other ("flu" /
// "influenza"), a contraction of one word ("dept" / "department"; not
// "msg" / "monosodium glutamate") or two spellings ("colour" / "color").
func writtenAlike(x, y string, oneWord bool) bool {
	rx, ry := []rune(x), []rune(y)
	if len(rx) > len(ry) {
		rx, ry = ry, rx
		x, y = y, x
	}
	if len(rx) < 3 {
		return false
	}
	if strings.Contains(y, x) || oneWord && len(rx) <= 5 && rx[0] == ry[0] && subsequence(rx, ry) {
		return true
	}
	max := 1
	if len(rx) >= 5 {
		max = 2
	}
	return osa(rx, ry, max) <= max
}

// dottedShortForm reports whether n is one word written with a dot, an
// abbreviation of the lexicon's kind ("Calif." is California, not the
// caliph).
func dottedShortForm(n *nameInfo) bool {
	return len(n.content) == 1 && strings.HasSuffix(strings.TrimSpace(n.text), ".")
}

// wordNetOverrides are the vetoes a synonym set of WordNet outweighs:
// the shapes of spelling that say two names are two things unless
// something else says they are one ("neural net" / "neural network" is
// one word clipped to another). Vetoes of numbers, files, code, letters,
// qualifiers, places and derived words stand ("Parkinson's" /
// "Parkinsonism": a disease and a syndrome, one set of WordNet).
var wordNetOverrides = []string{"compound_and_head_word", "more_specific", "different_words", "siblings"}

// wordNetScore is a review's score on a WordNet synonym set.
const wordNetScore = 0.85

// byWordNet makes j a review when WordNet holds a and b as one synonym
// set and no rule has judged them (or, when sure, only a veto WordNet
// outweighs): sure when the set is the dominant sense of both, else weak
// (the context decides). A weak verdict of another rule that WordNet confirms with a
// dominant sense stands without context ("DNA" / deoxyribonucleic acid),
// and so does an acronym whose initials name several concepts.
func (j *judgement) byWordNet(a, b *nameInfo, vocab map[string][]int32) {
	if j.verdict == VerdictMerge || j.verdict == VerdictReview && !j.weak && !slices.Contains(j.evidence, "acronym") {
		return
	}
	if j.veto != "" && !slices.ContainsFunc(wordNetOverrides, func(v string) bool { return strings.HasPrefix(j.veto, v) }) {
		return
	}
	found, sure := wordNetPair(a, b, vocab)
	if !found || j.veto != "" && !sure {
		return
	}
	if j.verdict != "" {
		if sure {
			j.weak = false
			j.evidence = append(j.evidence, "wordnet")
		}
		return
	}
	j.veto = ""
	j.score, j.verdict = wordNetScore, VerdictReview
	j.evidence = append(j.evidence[:0:0], "wordnet")
	j.weak = !sure
}

// Categories of data.noun a one-word name must not have in the shipped
// sets for kindNounAfter: a person's, a place's or a natural object's
// name ("Feynman", "Peking", "Caspian", "Irrawaddy") is as often
// another thing named after it ("Feynman diagram", "Peking duck").
const (
	wnPlace         = 15
	wnNaturalObject = 17
)

// wnThingKinds are the kinds a word after a coined name must be for
// kindNounAfter: a thing made, a disease, an organisation or a
// landform. A place is not ("Mykonos town", "Douro wine region" name
// the place around the thing).
const wnThingKinds = wnArtifact | wnDisease | wnOrganization | wnFormation

// kindNounAfter reports whether long is short, a coined one-word name,
// and one or two words after it that say what kind of thing it is
// ("Trivy scanner", "Nextcloud server", "Arduino board"): the words,
// or if they are no kind noun the last of them, are a kind noun of
// WordNet (wnThingKinds, any sense), written in lower case, each a word
// of its own ("Rosetta@home" is one word), and when the last word
// decides, the one between is no thing in its first sense ("Aeron chair
// cushion": a thing for the chair). The name is no English word,
// acronym, country, city, short form of the lexicon or possessive
// ("Chekhov's gun"), and no person, place or natural object of the
// shipped sets ("Feynman diagram", "Peking duck"): a name and a thing
// named after it. An animal or a plant is no kind ("Amur tiger").
func kindNounAfter(short, long *nameInfo) bool {
	if len(short.content) != 1 || len(long.content) < 2 || len(long.content) > 3 || !hasPrefix(long.content, short.content) ||
		short.acro || digitAcronym(short.text) || possessiveName(short.text) {
		return false
	}
	w := short.content[0]
	if countries[w] || isCity(short) || lexicon()[w] != nil || englishWords().has(w) {
		return false
	}
	fs := strings.Fields(long.text)
	if len(fs) != len(long.content) || analyseBase(fs[0]) != short.folded || possessiveName(fs[0]) {
		return false
	}
	for _, f := range fs[1:] {
		if !isLetters(f) || f != strings.ToLower(f) {
			return false
		}
	}
	wn := wordNetData()
	for _, s := range wn.senses(short) {
		if s.cat == wnPerson || s.cat == wnPlace || s.cat == wnNaturalObject {
			return false
		}
	}
	kind := wn.kindOf(analyseBase(strings.Join(fs[1:], " ")))
	if kind&wnThingKinds == 0 && len(fs) == 3 {
		if wn.kindOf(analyseBase(fs[1]))>>wnFirstSense&wnThingKinds != 0 {
			// The word between is a thing first ("Aeron chair
			// cushion"): the last word is a part of it or a thing for
			// it, not what the name is. "Wireshark packet analyzer",
			// "Nmap security scanner": a packet, security are no thing
			// in their first sense.
			return false
		}
		kind = wn.kindOf(analyseBase(fs[2]))
	}
	return kind&wnThingKinds != 0
}
