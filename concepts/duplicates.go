package concepts

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/fuzzy"
	"github.com/noema-mem/noema/vector"
)

// analyze_duplicates: which concepts are one concept under two names, and
// which look alike but must stay apart. The rules, and how well they do on
// the labelled set in testdata/duplicates.tsv, are in docs/duplicates.md.
//
// Candidate pairs come from every signal at once, each through an index
// rather than by scoring all pairs:
//
//   - folded: the same key after case, accent, separator, singular/plural,
//     word order and function word folding ("Injection of dependencies" /
//     "dependency injection");
//   - compact: the same words without spaces ("Java Script" / "JavaScript");
//   - edit: one edit apart in the compact form (a deletion neighbourhood:
//     typos, transpositions, a missing letter);
//   - token: a rare word in common, scored with WRatio; and a name against
//     the names that add a word or two to it ("SQL injection" / "SQL
//     injection attack"), however common its words;
//   - abbreviation: a word replaced by its first letter ("dev server" /
//     "development server"), word prefixes, standard contractions and
//     numeronyms of one-word names ("config", "mgmt", "k8s");
//   - head: one name is the other plus generic head words ("Raft" / "Raft
//     consensus algorithm");
//   - acronym: a name written as an acronym is the initials of the other
//     ("CI" / "Continuous Integration", "JSON" / "JavaScript Object
//     Notation");
//   - embedding: close vectors (random-hyperplane hashing over the semantic
//     service's cached vectors, then the exact cosine);
//   - neighbours: notes linking both.
//
// Every candidate is then judged on all the evidence: fuzzy WRatio,
// embedding similarity, shared neighbours (notes and relations in common),
// folded key, mention counts. Pairs that look alike but name different
// things (opposites, siblings that differ by one word, version numbers, file
// names and code identifiers, a compound and its head word) go to
// do_not_merge with the reason.

// Limits and thresholds of analyze_duplicates.
const (
	DefaultDuplicateLimit = 50
	MaxDuplicateLimit     = 500
	// dnmFuzzy is the WRatio from which a vetoed pair is listed in
	// do_not_merge ("when they score high").
	dnmFuzzy = 75
	// embedReview is the cosine similarity from which a pair with no other
	// evidence is proposed for review.
	embedReview = 0.92
	// mergeSimilarity is merge_concepts' default min_similarity.
	mergeSimilarity = 0.7
	// tokenBucketCap skips words shared by more concepts than this as a
	// blocking key (a common word says little; its pairs are reached
	// through rarer words, edits or embeddings).
	tokenBucketCap = 32
	// bucketCap bounds the pairs taken from one key of the exact channels.
	bucketCap = 256
	// maxNoteConcepts: notes linking more concepts than this do not make
	// candidate pairs (their shared-neighbour counts still do).
	maxNoteConcepts = 16
)

// Verdicts of a duplicate pair.
const (
	VerdictMerge  = "merge"
	VerdictReview = "review"
)

// DuplicatesInput asks for likely duplicate concepts.
type DuplicatesInput struct {
	Concept  string  `json:"concept,omitempty" jsonschema:"only this concept's group (id, label or alias); empty: the whole vault"`
	Limit    int     `json:"limit,omitempty" jsonschema:"groups per page (default 50, max 500)" default:"50" minimum:"0" maximum:"500"`
	Offset   int     `json:"offset,omitempty" jsonschema:"paging offset (default 0)" default:"0" minimum:"0"`
	MinScore float64 `json:"min_score,omitempty" jsonschema:"drop pairs scoring below this, 0-1 (default 0: every pair with a merge or review verdict)" default:"0" minimum:"0" maximum:"1"`
}

// DupRef names a concept in a duplicate report.
type DupRef struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// DupMember is a concept of a duplicate group.
type DupMember struct {
	ID       string `json:"id"`
	Label    string `json:"label"`
	Mentions int    `json:"mentions"`
	HasPage  bool   `json:"has_page"`
	// Page is the page's URI when it has one.
	Page string `json:"page,omitempty"`
}

// DupPair is the evidence that two concepts are one.
type DupPair struct {
	A DupRef `json:"a"`
	B DupRef `json:"b"`
	// Score is the pair's strength, 0-1 (see docs/duplicates.md).
	Score float64 `json:"score"`
	// Fuzzy is the best WRatio (0-100) over the two concepts' names.
	Fuzzy float64 `json:"fuzzy"`
	// Similarity is the embeddings' cosine; null when either concept has
	// no vector.
	Similarity *float64 `json:"similarity"`
	// SharedNeighbors counts notes and relation ends the two have in
	// common.
	SharedNeighbors int  `json:"shared_neighbors"`
	FoldedKeyEqual  bool `json:"folded_key_equal"`
	// Evidence lists what fired: folded_key, singular_plural, accents,
	// word_order, function_words, spacing, typo, generic_head_word,
	// abbreviation, acronym, fuzzy, embedding, shared_neighbors,
	// and the channels that found the pair (found_by:…).
	Evidence []string `json:"evidence"`
	// Verdict is merge (the names are one concept) or review (plausible;
	// look before merging).
	Verdict string `json:"verdict"`
	// Names are the two names (label or alias) that matched best.
	Names [2]string `json:"names"`
	// wantsContext: a judgement that needs the concepts' contexts was
	// dropped because they were not loaded.
	wantsContext bool
	// picked is the number of keys in context that picked this pair (an
	// acronym of several concepts, a weak clip); 0 for other pairs.
	picked int
}

// MergeSuggestion is ready to pass to merge_concepts.
type MergeSuggestion struct {
	Sources []string `json:"sources"`
	Target  string   `json:"target"`
}

// DupGroup is a set of concepts that are likely one.
type DupGroup struct {
	// Target is the suggested survivor: the member whose page is a note
	// of the vault, then one with a page, then not the rarer spelling of a
	// typo, then most mentions, then older.
	Target  DupRef      `json:"target"`
	Members []DupMember `json:"members"`
	Pairs   []DupPair   `json:"pairs"`
	// Score is the best pair's score.
	Score   float64         `json:"score"`
	Verdict string          `json:"verdict"`
	Merge   MergeSuggestion `json:"merge"`
}

// DoNotMerge is a pair that looks alike but names two things.
type DoNotMerge struct {
	A          DupRef   `json:"a"`
	B          DupRef   `json:"b"`
	Reason     string   `json:"reason"`
	Fuzzy      float64  `json:"fuzzy"`
	Similarity *float64 `json:"similarity"`
}

// DuplicatesResult is analyze_duplicates' answer.
type DuplicatesResult struct {
	Groups     []DupGroup   `json:"groups"`
	DoNotMerge []DoNotMerge `json:"do_not_merge"`
	// Total is the number of groups; HasMore whether more follow Offset+Limit.
	Total    int      `json:"total"`
	Offset   int      `json:"offset"`
	Limit    int      `json:"limit"`
	HasMore  bool     `json:"has_more"`
	Embedder string   `json:"embedder,omitempty"`
	Concepts int      `json:"concepts"`
	Warnings []string `json:"warnings"`
}

// Embeddings gives analyze_duplicates the semantic service's cached
// concept vectors; *semantic.Service implements it.
type Embeddings interface {
	// ConceptVectors returns the embedder's name and each concept's
	// normalized vector by concept id (concepts without one are absent).
	// The error, when the vectors are incomplete or missing, is reported
	// as a warning.
	ConceptVectors(ctx context.Context) (embedder string, vecs map[string][]float32, err error)
}

// dupStats is what the index knows about a concept besides its names.
type dupStats struct {
	Mentions int
	HasPage  bool
	// Page is the vault path of its page, "" when none; Explicit whether
	// that page declares the concept (under concepts/ or with a concept:
	// key) rather than being a note taken by its title. A note's aliases
	// are the concept's only when the page is explicit.
	Page     string
	Explicit bool
	// Created is the concept's created time, Unix nanoseconds.
	Created int64
	// Neighbors are the notes linking it and its relations' other ends,
	// as ids comparable across concepts, ascending.
	Neighbors []int64
}

// Context: the concepts linked beside a concept in its notes. Two names of
// one concept are written about the same things; a name that only looks
// like another (an acronym of several expansions, a clipped word, a
// place's qualifier) is linked beside other things.
const (
	// contextNoteLinks: a note linking more keys gives none of them
	// context (a list, an index page).
	contextNoteLinks = 32
	// contextMin is the number of keys each side's context needs before
	// it is evidence.
	contextMin = 3
	// contextSupport is the number of keys in common that pick one
	// expansion of an acronym of several concepts.
	contextSupport = 2
)

// dupConcept is one concept as the analysis sees it.
type dupConcept struct {
	id, label string
	names     []nameInfo // label first
	dupStats
	// context is the sorted keys linked beside it (hasContext: loaded).
	context    []string
	hasContext bool
	vec        []float32
	// support is how many concepts' names use the label's rarest content
	// word: a misspelt word is in few names, its right spelling in more.
	support int
	// vocab is the vault's words by the concepts using them (nil: not
	// known): a word in several names is a word, not a clipped form.
	vocab map[string][]int32
	// distinct is the keys of the names a person marked it as not a
	// duplicate of (distinct.go; nil: none).
	distinct map[string]bool
	// defined is the concepts the notes write beside it as a short form
	// and what it stands for, by id, with the number of notes
	// (definitions.go); expansion, of a short form, is the one it stands
	// for.
	defined   map[string]int
	expansion string
}

// ownName reports whether c's i-th name is the concept's own: its label,
// or an alias declared by an explicit page. The aliases of a note taken as
// a page by its title are the note's: they may find a duplicate but never
// veto one.
func (c *dupConcept) ownName(i int) bool { return i == 0 || c.Explicit || c.Page == "" }

// realNote reports whether c's page is a note of the vault rather than a
// concept page under concepts/.
func (c *dupConcept) realNote() bool {
	return c.Page != "" && !strings.HasPrefix(c.Page, noema.ConceptsDir)
}

// dupIndex holds the blocking keys of every concept's names; built once
// per registry version.
type dupIndex struct {
	names    [][]nameInfo // by concept (matcher order)
	pos      map[string]int32
	folded   map[string][]int32
	compact  map[string][]int32
	deletion map[uint64][]int32 // hashes of the deletion neighbourhoods
	token    map[string][]int32
	core     map[string][]int32 // content words joined, and core words joined when shorter
	initials map[string][]int32 // initials of names of 2+ content words
	// Of one-word names: short are the words of 3-8 runes, shortFL the
	// standard contractions by first and last letter; longPre are the
	// words of 5+ runes by their prefixes of 3-8 runes, longFL by first
	// and last letter: a clipped or contracted
	// word meets its full form ("config"/"configuration", "dept"/
	// "department"). Numeronyms ("k8s") meet their word through longFL
	// under "#" + length.
	short, shortFL, longPre, longFL map[string][]int32
	// sub are the folded keys of names without one or two of their
	// content words ("sql injection" of "SQL injection attack"): a name
	// meets the names that add a word or two to it, however common its
	// words. wild are the content words with one replaced by its first
	// letter and "*" ("d* server"): a clipped word meets its full form.
	sub, wild map[string][]int32
	// initialsWild are the content words of 2-3 word names, each replaced
	// by its first letter and "*" ("e* v*"): two clipped words at once
	// ("env var" / "environment variable").
	initialsWild map[string][]int32
	version      map[string][]int32 // content words without their digits, for names with digits
	// variant are the names whose American spelling folds otherwise, by
	// that key (variants.go).
	variant map[string][]int32
	// oneWord are the one-word names of 6+ letters by their first letter
	// and a later letter that follows a vowel ("tb" of tuberculosis): an
	// acronym of one long word meets it (oneWordAcronym).
	oneWord map[string][]int32
	// runs are the names of 3-7 words by partialKey of each run of two
	// words or more: an acronym among words ("LRU cache") meets the
	// name that spells it out.
	runs map[string][]int32
	// lex are the names by their folded keys with a short form of the
	// lexicon written out (lexicon.go): "Sgt." meets "sergeant".
	lex map[string][]int32
	// wordnet are the names by the WordNet synonym sets they are a lemma
	// of (wordnet.go): "DNA" meets "deoxyribonucleic acid".
	wordnet map[int32][]int32
	// acroLex are the names written as a short form of the acronym
	// lexicon, by its key (acronyms.go): "TV" meets "television".
	acroLex map[string][]int32
	lsh     *lshCache
}

// buildDupIndex indexes every name of m's concepts under the keys of the
// candidate channels.
func buildDupIndex(m *matcher) *dupIndex {
	x := &dupIndex{
		names:        make([][]nameInfo, len(m.ids)),
		pos:          make(map[string]int32, len(m.ids)),
		folded:       map[string][]int32{},
		compact:      map[string][]int32{},
		deletion:     make(map[uint64][]int32, 16*len(m.ids)),
		token:        map[string][]int32{},
		core:         map[string][]int32{},
		initials:     map[string][]int32{},
		version:      map[string][]int32{},
		short:        map[string][]int32{},
		shortFL:      map[string][]int32{},
		longPre:      map[string][]int32{},
		longFL:       map[string][]int32{},
		sub:          map[string][]int32{},
		wild:         map[string][]int32{},
		initialsWild: map[string][]int32{},
		variant:      map[string][]int32{},
		oneWord:      map[string][]int32{},
		runs:         map[string][]int32{},
		lex:          map[string][]int32{},
		wordnet:      map[int32][]int32{},
		acroLex:      map[string][]int32{},
		lsh:          &lshCache{},
	}
	for i := range m.ids {
		c := int32(i)
		x.pos[m.ids[i]] = c
		texts := append([]string{m.labels[i]}, m.aliases[i]...)
		for _, t := range texts {
			n := analyseName(t)
			x.names[i] = append(x.names[i], n)
			if n.folded == "" {
				continue
			}
			x.addSpellingKeys(&n, c)
			x.addWordKeys(&n, c)
			x.addAcronymKeys(&n, c)
		}
	}
	return x
}

// addKey files concept c under k in mp, once.
func addKey(mp map[string][]int32, k string, c int32) {
	l := mp[k]
	if len(l) > 0 && l[len(l)-1] == c {
		return
	}
	mp[k] = append(l, c)
}

// addSpellingKeys files concept c under the keys of name n's spellings:
// folded, compact, qualified, wild, deletions, version and variant.
func (x *dupIndex) addSpellingKeys(n *nameInfo, c int32) {
	addKey(x.folded, n.folded, c)
	addKey(x.compact, n.compact, c)
	if n.full != n.compact {
		addKey(x.compact, n.full, c)
	}
	if n.qualBase != "" {
		addKey(x.folded, n.qualBase, c)
	}
	for _, k := range subKeys(n.content) {
		addKey(x.sub, k, c)
	}
	if len(n.content) >= 2 && len(n.content) <= 6 {
		for i, w := range n.content {
			ws := slices.Clone(n.content)
			ws[i] = string([]rune(w)[:1]) + "*"
			addKey(x.wild, strings.Join(ws, " "), c)
		}
	}
	if k := allWildKey(n); k != "" {
		addKey(x.initialsWild, k, c)
	}
	for _, d := range deletionHashes(n.compact, n.raw) {
		l := x.deletion[d]
		if len(l) == 0 || l[len(l)-1] != c {
			x.deletion[d] = append(l, c)
		}
	}
	if k := versionKey(n); k != "" {
		addKey(x.version, k, c)
	}
	if n.variant != "" {
		addKey(x.variant, n.variant, c)
	}
	for _, k := range n.lex {
		addKey(x.lex, k.key, c)
	}
	if k := numberFolded(n); k != "" && k != n.variant {
		addKey(x.variant, k, c) // "Formula One" meets "Formula 1"
	}
	for _, s := range wordNetData().senses(n) {
		if l := x.wordnet[s.id]; len(l) == 0 || l[len(l)-1] != c {
			x.wordnet[s.id] = append(l, c)
		}
	}
	for _, k := range n.acroLex {
		addKey(x.acroLex, k, c)
	}
}

// addWordKeys files concept c under the keys of name n's words: clipped
// and contracted words, tokens, core and one-word keys.
func (x *dupIndex) addWordKeys(n *nameInfo, c int32) {
	// One-word names only: a clipped word among others meets its
	// full form through the wild keys.
	if w := n.content[0]; len(n.content) == 1 {
		r := []rune(w)
		if len(r) >= 3 && len(r) <= 8 {
			addKey(x.short, w, c)
		}
		if contractions[w] {
			addKey(x.shortFL, string(r[0])+string(r[len(r)-1]), c)
		}
		if len(r) >= 5 {
			for k := 3; k <= min(8, len(r)-2); k++ {
				addKey(x.longPre, string(r[:k]), c)
			}
			addKey(x.longFL, string(r[0])+string(r[len(r)-1]), c)
			addKey(x.longFL, fmt.Sprintf("#%c%d%c", r[0], len(r)-2, r[len(r)-1]), c)
		}
	}
	for _, w := range n.content {
		if len(w) >= 2 {
			addKey(x.token, w, c)
		}
	}
	if raw := words(n.text); len(raw) >= 2 && len(n.content) >= 2 && capitalisedName(n.text) {
		switch k := len(n.content); {
		case eponymHeads[raw[len(raw)-1]]:
			// "Spinoza Prize", "Frida Kahlo Museum": named after a
			// person, and nobody calls it by the surname alone.
			addKey(x.token, eponymKey+n.content[k-2], c)
		case k == 2 && len(raw) == 2 && !givenNames()[raw[0]] && !moreGivenNames()[raw[0]] && !givenNames()[raw[1]] && !wordNetPerson(n):
			// "River Shannon", "Goldman Sachs": a proper name of two
			// words, no person's (no given name of the lists, no person
			// of WordNet: "Marc Chagall"), that a surname is part of
			// (onlyPerson).
			for _, w := range n.content {
				addKey(x.token, properKey+w, c)
			}
		}
	}
	for _, w := range n.parts {
		if len(w) >= 2 && !slices.Contains(n.content, w) {
			addKey(x.token, w, c)
		}
	}
	addKey(x.core, strings.Join(n.content, " "), c)
	if len(n.core) < len(n.content) {
		addKey(x.core, "\x00"+strings.Join(n.core, " "), c)
	}
	if len(n.content) == 1 && !n.acro {
		for _, k := range oneWordKeys(n.content[0]) {
			addKey(x.oneWord, k, c)
		}
	}
}

// addAcronymKeys files concept c under the acronyms name n may be or
// spell out: its runs and its initials.
func (x *dupIndex) addAcronymKeys(n *nameInfo, c int32) {
	for _, k := range runKeys(n) {
		addKey(x.runs, k, c)
	}
	if len(n.all) >= 2 && len(n.all) <= 6 {
		for _, k := range runInitials(n.all) {
			if len(k) >= 2 {
				addKey(x.initials, k, c)
			}
		}
	}
	for _, ws := range acronymSources(n) {
		var b strings.Builder
		for _, w := range ws {
			b.WriteString(initialOf(w))
		}
		addKey(x.initials, b.String(), c)
	}
	for _, k := range digitInitials(n.all) {
		addKey(x.initials, k, c) // "4wd" of four-wheel drive
	}
}

// support is how many concepts' names use the rarest content word of
// concept i's label (0 when it has none).
func (x *dupIndex) support(i int) int {
	n := -1
	for _, w := range x.names[i][0].content {
		if l := len(x.token[w]); n < 0 || l < n {
			n = l
		}
	}
	return max(n, 0)
}

// versionKey is a name's compact form without digits ("ipv" for IPv4 and
// IPv6, "python" for Python 3), "" when it has no digit or nothing else:
// names that differ only in numbers meet, to be kept apart.
func versionKey(n *nameInfo) string {
	if len(n.numbers) == 0 {
		return ""
	}
	k := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return -1
		}
		return r
	}, n.compact)
	if len(k) < 1 {
		return ""
	}
	return k
}

// deletionHashes returns the hashes of the deletion neighbourhoods of
// distance 1 of each form: the form and every string one rune shorter. Two
// strings within one edit (or an adjacent transposition) share one. Forms
// shorter than 5 runes or longer than 40 have none; a hash collision only
// adds a candidate, which judging then rejects.
func deletionHashes(forms ...string) []uint64 {
	var out []uint64
	for k, f := range forms {
		if k > 0 && f == forms[k-1] {
			continue
		}
		r := []rune(f)
		if len(r) < 5 || len(r) > 40 {
			continue
		}
		out = append(out, hashRunes(r, -1))
		for i := range r {
			if i > 0 && r[i] == r[i-1] {
				continue // same string as the previous deletion
			}
			out = append(out, hashRunes(r, i))
		}
	}
	return out
}

// hashRunes is FNV-1a over r without r[skip].
func hashRunes(r []rune, skip int) uint64 {
	h := uint64(14695981039346656037)
	for i, c := range r {
		if i == skip {
			continue
		}
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// channels that found a pair.
const (
	chFolded uint32 = 1 << iota
	chCompact
	chEdit
	chToken
	chHead
	chAcronym
	chEmbedding
	chNeighbors
	chVersion
	chAbbrev
	// chAcronymOfSeveral: an acronym whose initials name several
	// concepts; judged as one only when the context picks this one.
	chAcronymOfSeveral
	// chSpelling: one folded key in American spelling.
	chSpelling
	// chSeveralQualified: a name and one of two or more qualified forms
	// of it ("Jupiter" and "Jupiter (planet)", with "Jupiter, Florida"
	// in the vault): judged as one only when the context picks this one.
	chSeveralQualified
	// chDefined: a note writes one as the abbreviation of the other
	// ("Transport Layer Security (TLS)", definitions.go).
	chDefined
	// chWordNet: one synonym set of WordNet (wordnet.go).
	chWordNet
	// chCompound: a coined word that joins the starts of one concept's
	// words only ("FinTech", compounds.go).
	chCompound
	// chAcronymLexicon: a short form of the acronym lexicon and a
	// concept named by one of its meanings (acronyms.go).
	chAcronymLexicon
	// chAcronymLexiconSeveral: the vault names two meanings of that
	// short form ("PM": project manager, prime minister); the context
	// picks.
	chAcronymLexiconSeveral
	// chAcronymLexiconOther: a pair of a short form of the acronym
	// lexicon whose meaning the vault names as a third concept ("TV"
	// and "total variation", beside "television"): its initials alone
	// do not make it this one.
	chAcronymLexiconOther
)

var channelNames = []string{"folded_key", "compact", "edit", "token", "head_word", "acronym", "embedding", "shared_notes", "version", "abbreviation", "acronym_of_several", "spelling", "several_qualified", "defined_in_notes", "wordnet", "clipped_compound", "acronym_lexicon", "acronym_lexicon_of_several", "acronym_lexicon_other"}

func channelEvidence(ch uint32) []string {
	var out []string
	for i, n := range channelNames {
		if ch&(1<<i) != 0 {
			out = append(out, "found_by:"+n)
		}
	}
	return out
}

// candidates collects candidate pairs: key a<b packed into a uint64, value
// the channels that found it.
type candidates struct {
	pairs map[uint64]uint32
	only  int32 // when >= 0, only pairs involving this concept
}

func pairKey(a, b int32) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(uint32(a))<<32 | uint64(uint32(b))
}

func (cs *candidates) add(a, b int32, ch uint32) {
	if a == b {
		return
	}
	if cs.only >= 0 && a != cs.only && b != cs.only {
		return
	}
	cs.pairs[pairKey(a, b)] |= ch
}

// within adds the pairs within one key's list l (of at most limit
// concepts; with cs.only, those of that concept) on the channels ch
// gives them, none when it gives 0.
func (cs *candidates) within(l []int32, limit int, ch func(a, b int32) uint32) {
	if len(l) < 2 || len(l) > limit {
		return
	}
	for i := range l {
		for k := i + 1; k < len(l); k++ {
			a, b := l[i], l[k]
			if cs.only >= 0 && a != cs.only && b != cs.only {
				continue
			}
			if c := ch(a, b); c != 0 {
				cs.add(a, b, c)
			}
		}
	}
}

// bucket adds the pairs within one key's list (capped).
func (cs *candidates) bucket(l []int32, ch uint32, limit int) {
	if len(l) < 2 || len(l) > limit {
		return
	}
	if cs.only >= 0 {
		if slices.Contains(l, cs.only) {
			for _, b := range l {
				cs.add(cs.only, b, ch)
			}
		}
		return
	}
	for i := range l {
		for j := i + 1; j < len(l); j++ {
			cs.add(l[i], l[j], ch)
		}
	}
}

// gather runs the string channels; only >= 0 restricts them to one concept.
func (x *dupIndex) gather(cs *candidates) {
	x.gatherKeys(cs, x.folded, func(n *nameInfo) []string { return []string{n.folded} }, chFolded)
	x.gatherSeveralQualified(cs)
	x.gatherKeys(cs, x.compact, func(n *nameInfo) []string { return []string{n.compact} }, chCompact)
	x.gatherEdits(cs)
	x.gatherKeys(cs, x.version, func(n *nameInfo) []string { return []string{versionKey(n)} }, chVersion)
	x.gatherTokens(cs)
	x.gatherHeads(cs)
	x.gatherAcronyms(cs)
	x.gatherSpellings(cs)
	x.gatherSubNames(cs)
	x.gatherLexicon(cs)
	x.gatherWild(cs)
	x.gatherTwoClipped(cs)
	x.gatherClipped(cs)
	x.gatherWordNet(cs)
	x.gatherCompounds(cs)
	x.gatherAcronymLexicon(cs)
}

// gatherWordNet pairs the names of one WordNet synonym set; a pair of
// an acronym whose initials other concepts spell too is also an acronym
// of several (the context picks).
func (x *dupIndex) gatherWordNet(cs *candidates) {
	pairs := func(l []int32) {
		cs.within(l, bucketCap, func(a, b int32) uint32 {
			if x.otherExpansion(a, b) || x.otherExpansion(b, a) {
				return chWordNet | chAcronymOfSeveral
			}
			return chWordNet
		})
	}
	if cs.only < 0 {
		for _, l := range x.wordnet {
			pairs(l)
		}
		return
	}
	for i := range x.names[cs.only] {
		for _, s := range wordNetData().senses(&x.names[cs.only][i]) {
			pairs(x.wordnet[s.id])
		}
	}
}

// otherExpansion reports whether a name of concept a is an acronym whose
// initials a concept other than b spells.
func (x *dupIndex) otherExpansion(a, b int32) bool {
	for _, n := range x.names[a] {
		if n.acro && slices.ContainsFunc(x.initials[n.acroWord], func(c int32) bool { return c != a && c != b }) {
			return true
		}
	}
	return false
}

// gatherKeys pairs the concepts sharing a key of mp (every bucket, or the
// buckets of cs.only's names, keys giving a name's keys) on channel ch.
func (x *dupIndex) gatherKeys(cs *candidates, mp map[string][]int32, keys func(n *nameInfo) []string, ch uint32) {
	if cs.only < 0 {
		for _, l := range mp {
			cs.bucket(l, ch, bucketCap)
		}
		return
	}
	for i := range x.names[cs.only] {
		for _, k := range keys(&x.names[cs.only][i]) {
			cs.bucket(mp[k], ch, bucketCap)
		}
	}
}

// gatherSeveralQualified pairs a bare name with its qualified forms when
// it has two or more: the bare name names one of them, or another thing,
// and the context picks.
func (x *dupIndex) gatherSeveralQualified(cs *candidates) {
	for k, l := range x.folded {
		if len(l) < 3 || len(l) > bucketCap {
			continue
		}
		var bare, qual []int32
		for _, c := range l {
			isBare := slices.ContainsFunc(x.names[c], func(n nameInfo) bool { return n.folded == k })
			isQual := slices.ContainsFunc(x.names[c], func(n nameInfo) bool { return n.qualBase == k })
			switch {
			case isBare && !isQual:
				bare = append(bare, c)
			case isQual && !isBare:
				qual = append(qual, c)
			}
		}
		if len(qual) < 2 {
			continue
		}
		for _, a := range bare {
			for _, b := range qual {
				if cs.only < 0 || a == cs.only || b == cs.only {
					cs.add(a, b, chSeveralQualified)
				}
			}
		}
	}
}

// gatherEdits pairs the names sharing a deletion hash: a typo apart.
func (x *dupIndex) gatherEdits(cs *candidates) {
	if cs.only < 0 {
		for _, l := range x.deletion {
			cs.bucket(l, chEdit, bucketCap)
		}
	} else {
		for i := range x.names[cs.only] {
			n := &x.names[cs.only][i]
			for _, d := range deletionHashes(n.compact, n.raw) {
				cs.bucket(x.deletion[d], chEdit, bucketCap)
			}
		}
	}
}

// gatherTokens pairs the names sharing a word. Only pairs whose names
// differ by at most a word each way, or one's words all in the other's,
// are worth judging.
func (x *dupIndex) gatherTokens(cs *candidates) {
	tokenPairs := func(l []int32) {
		cs.within(l, tokenBucketCap, func(a, b int32) uint32 {
			if nearNames(x.names[a], x.names[b]) {
				return chToken
			}
			return 0
		})
	}
	if cs.only < 0 {
		for k, l := range x.token {
			if !strings.HasPrefix(k, "\x00") { // not properKey's or eponymKey's
				tokenPairs(l)
			}
		}
	} else {
		for i := range x.names[cs.only] {
			n := &x.names[cs.only][i]
			for _, w := range append(slices.Clone(n.content), n.parts...) {
				tokenPairs(x.token[w])
			}
		}
	}
}

// gatherHeads pairs a name with the names whose core it is ("raft" and
// the core "\x00raft" of "raft consensus algorithm").
func (x *dupIndex) gatherHeads(cs *candidates) {
	for k, l := range x.core {
		if strings.HasPrefix(k, "\x00") {
			continue
		}
		ext := x.core["\x00"+k]
		if len(ext) == 0 {
			continue
		}
		for _, a := range l {
			for _, b := range ext {
				cs.add(a, b, chHead)
			}
		}
	}
}

// gatherAcronyms pairs a name written as an acronym with the names whose
// initials it is. An acronym of more concepts than one is judged only
// when the context picks the expansion (judgeSim).
func (x *dupIndex) gatherAcronyms(cs *candidates) {
	for i, names := range x.names {
		for _, n := range names {
			for _, k := range acronymKeys(&n) {
				for _, b := range x.runs[k] {
					cs.add(int32(i), b, chAcronym)
				}
			}
			w := acronymWord(&n)
			if w == "" {
				continue
			}
			l := x.initials[w]
			if len(l) == 0 {
				l = x.innerInitials(w)
			}
			// One long word spelling the acronym is weak evidence, judged
			// with context only: it never makes a unique expansion one of
			// several.
			for _, b := range x.oneWordExpansions(w, l)[len(l):] {
				cs.add(int32(i), b, chAcronymOfSeveral)
			}
			switch {
			case len(l) == 1 || len(l) <= 4 && x.spelledAsOne(l):
				// One expansion, or several names spelled as one
				// ("Formula 1" and "Formula One" of F1).
				for _, b := range l {
					cs.add(int32(i), b, chAcronym)
				}
			case len(l) <= bucketCap:
				for _, b := range l {
					cs.add(int32(i), b, chAcronymOfSeveral)
				}
			}
		}
	}
}

// spelledAsOne reports whether the concepts l are one by their labels'
// spelling: every two of them judged a merge by the spelling rules
// (folded key, spacing, numbers written as words, British spelling).
func (x *dupIndex) spelledAsOne(l []int32) bool {
	for i := range l {
		for k := i + 1; k < len(l); k++ {
			j := compareNames(&x.names[l[i]][0], &x.names[l[k]][0], nil)
			if j.verdict != VerdictMerge || j.weak || slices.Contains(j.evidence, "typo") {
				return false
			}
		}
	}
	return true
}

// gatherSpellings pairs the British and American spellings of one name.
func (x *dupIndex) gatherSpellings(cs *candidates) {
	for k, l := range x.variant {
		if cs.only >= 0 && !slices.Contains(l, cs.only) && !slices.Contains(x.folded[k], cs.only) {
			continue
		}
		cs.bucket(append(slices.Clone(l), x.folded[k]...), chSpelling, bucketCap)
	}
}

// gatherSubNames pairs a name with the names adding a word or two to it.
func (x *dupIndex) gatherSubNames(cs *candidates) {
	if cs.only < 0 {
		for k, l := range x.sub {
			if f := x.folded[k]; len(f) > 0 && len(l) <= bucketCap {
				for _, a := range f {
					for _, b := range l {
						cs.add(a, b, chToken)
					}
				}
			}
		}
	} else {
		for _, n := range x.names[cs.only] {
			for _, b := range x.sub[n.folded] {
				cs.add(cs.only, b, chToken)
			}
			for _, k := range subKeys(n.content) {
				for _, b := range x.folded[k] {
					cs.add(cs.only, b, chToken)
				}
			}
		}
	}
}

// gatherLexicon pairs a name with a short form of the lexicon and the
// names that write it out ("Sgt." / "sergeant").
func (x *dupIndex) gatherLexicon(cs *candidates) {
	if cs.only < 0 {
		for k, l := range x.lex {
			if f := x.folded[k]; len(f) > 0 && len(l) <= bucketCap && len(f) <= bucketCap {
				for _, a := range f {
					for _, b := range l {
						cs.add(a, b, chAbbrev)
					}
				}
			}
		}
		return
	}
	for _, n := range x.names[cs.only] {
		if l := x.lex[n.folded]; len(l) <= bucketCap {
			for _, b := range l {
				cs.add(cs.only, b, chAbbrev)
			}
		}
		for _, k := range n.lex {
			if f := x.folded[k.key]; len(f) <= bucketCap {
				for _, b := range f {
					cs.add(cs.only, b, chAbbrev)
				}
			}
		}
	}
}

// gatherWild pairs the names sharing a wild key ("d* server"): a
// clipped word meets its full form.
func (x *dupIndex) gatherWild(cs *candidates) {
	if cs.only < 0 {
		for _, l := range x.wild {
			cs.bucket(l, chAbbrev, bucketCap)
		}
	} else {
		for _, n := range x.names[cs.only] {
			if len(n.content) >= 2 && len(n.content) <= 6 {
				for i, w := range n.content {
					ws := slices.Clone(n.content)
					ws[i] = string([]rune(w)[:1]) + "*"
					cs.bucket(x.wild[strings.Join(ws, " ")], chAbbrev, bucketCap)
				}
			}
		}
	}
}

// gatherTwoClipped pairs a name of two clipped words or more with the
// names of the same initials ("env var" / "environment variable").
func (x *dupIndex) gatherTwoClipped(cs *candidates) {
	for i, names := range x.names {
		if cs.only >= 0 && int32(i) != cs.only {
			continue
		}
		for k := range names {
			n := &names[k]
			key := allWildKey(n)
			l := x.initialsWild[key]
			if key == "" || len(l) > bucketCap {
				continue
			}
			for _, b := range l {
				if b == int32(i) {
					continue
				}
				if cs.only < 0 && !twoShortWords(n) {
					continue // the other side asks
				}
				if twoShortWords(n) || slices.ContainsFunc(x.names[b], func(m nameInfo) bool { return twoShortWords(&m) }) {
					cs.add(int32(i), b, chAbbrev)
				}
			}
		}
	}
}

// gatherClipped pairs the names with a clipped or contracted word, or a
// numeronym ("k8s"), with the names holding its full form.
func (x *dupIndex) gatherClipped(cs *candidates) {
	pairs := func(short []int32, long []int32) {
		if len(long) > tokenBucketCap*2 {
			return
		}
		for _, a := range short {
			for _, b := range long {
				cs.add(a, b, chAbbrev)
			}
		}
	}
	if cs.only < 0 {
		for w, l := range x.short {
			if len(l) > tokenBucketCap {
				continue
			}
			pairs(l, x.longPre[w])
			if contractions[w] {
				x.contracted(w, func(b int32) {
					for _, a := range l {
						cs.add(a, b, chAbbrev)
					}
				})
			}
		}
		for i, names := range x.names {
			for _, n := range names {
				if k := numeronymKey(n.text); k != "" {
					pairs([]int32{int32(i)}, x.longFL[k])
				}
			}
		}
	} else {
		for _, n := range x.names[cs.only] {
			for _, w := range n.content {
				r := []rune(w)
				if len(r) >= 2 && len(r) <= 8 {
					pairs([]int32{cs.only}, x.longPre[w])
					if contractions[w] {
						x.contracted(w, func(b int32) { cs.add(cs.only, b, chAbbrev) })
					}
				}
				if len(r) >= 5 {
					for k := 3; k <= min(8, len(r)-2); k++ {
						if l := x.short[string(r[:k])]; len(l) <= tokenBucketCap {
							pairs(l, []int32{cs.only})
						}
					}
					for _, a := range x.shortFL[string(r[0])+string(r[len(r)-1])] {
						for _, n := range x.names[a] {
							if slices.ContainsFunc(n.content, func(c string) bool {
								return contractions[c] && subsequence([]rune(c), r)
							}) {
								cs.add(a, cs.only, chAbbrev)
							}
						}
					}
				}
			}
			if k := numeronymKey(n.text); k != "" {
				pairs([]int32{cs.only}, x.longFL[k])
			}
		}
	}
}

// allWildKey is the initialsWild key of a name of 2-3 content words ("e*
// v*"), "" for other names.
func allWildKey(n *nameInfo) string {
	if len(n.content) < 2 || len(n.content) > 3 {
		return ""
	}
	var b strings.Builder
	for i, w := range n.content {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(string([]rune(w)[:1]))
		b.WriteByte('*')
	}
	return b.String()
}

// twoShortWords reports whether two content words of n or more are short
// enough to be clipped forms (2-5 letters).
func twoShortWords(n *nameInfo) bool {
	short := 0
	for _, w := range n.content {
		if l := len([]rune(w)); l >= 2 && l <= 5 {
			short++
		}
	}
	return short >= 2
}

// subKeys are the folded keys of content without one of its words (names
// of 2-8 words) or two (names of 3-5 words).
func subKeys(content []string) []string {
	if len(content) < 2 || len(content) > 8 {
		return nil
	}
	key := func(skip1, skip2 int) string {
		var ws []string
		for i, w := range content {
			if i != skip1 && i != skip2 {
				ws = append(ws, w)
			}
		}
		slices.Sort(ws)
		return strings.Join(slices.Compact(ws), " ")
	}
	var out []string
	for i := range content {
		out = append(out, key(i, -1))
		for j := i + 1; j < len(content) && len(content) >= 3 && len(content) <= 5; j++ {
			out = append(out, key(i, j))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// contracted calls fn with the concepts having a word that the standard
// contraction w ("mgmt") may stand for: same first and last letters, w's
// letters in order.
func (x *dupIndex) contracted(w string, fn func(int32)) {
	r := []rune(w)
	for _, b := range x.longFL[string(r[0])+string(r[len(r)-1])] {
		for _, n := range x.names[b] {
			if slices.ContainsFunc(n.content, func(c string) bool { return len(c) >= len(w)+2 && subsequence(r, []rune(c)) }) {
				fn(b)
				break
			}
		}
	}
}

// acronymWord is the word a name written as an acronym stands for ("CI",
// "U.S.A.": "usa"), "" for other names.
func acronymWord(n *nameInfo) string {
	if n.acro {
		return n.acroWord
	}
	if digitAcronym(n.text) {
		return strings.ToLower(n.text) // "4WD", "G7"
	}
	return ""
}

// acronymSources are the word lists whose initials a name's acronym may
// be: its content words, all its words (function words too: "DoS"), and
// its parts without function words ("JavaScript Object Notation": JSON),
// each of 2-6 words.
func acronymSources(n *nameInfo) [][]string {
	var out [][]string
	possessive := func(w string) bool { return w == "s" }
	parts := slices.DeleteFunc(slices.Clone(n.parts), func(w string) bool { return functionWords[w] || possessive(w) })
	for _, ws := range [][]string{slices.DeleteFunc(slices.Clone(n.content), possessive), slices.DeleteFunc(slices.Clone(n.all), possessive), parts} {
		if len(ws) < 2 || len(ws) > 6 || slices.ContainsFunc(out, func(o []string) bool { return slices.Equal(o, ws) }) {
			continue
		}
		out = append(out, ws)
	}
	return out
}

// numeronymKey is the longFL key of a numeronym ("k8s" → "#k8s"), "" for
// other names.
func numeronymKey(text string) string {
	t := strings.ToLower(strings.TrimSpace(text))
	r := []rune(t)
	if len(r) < 3 || !unicode.IsLetter(r[0]) || !unicode.IsLetter(r[len(r)-1]) {
		return ""
	}
	for _, c := range r[1 : len(r)-1] {
		if !unicode.IsDigit(c) {
			return ""
		}
	}
	return "#" + t
}

// simhash planes for the embedding channel: tables × bits hyperplanes.
const (
	lshTables = 16
	lshBits   = 14
	lshBucket = 64
)

// embeddingCandidates adds pairs of concepts whose vectors are close: with
// one concept, an exact scan; for the whole vault, random-hyperplane
// hashing (lshTables tables of lshBits bits; pairs in a common bucket are
// then compared exactly).
func embeddingCandidates(cs *candidates, vecs [][]float32, threshold float32, cache *lshCache) {
	var dim int
	for _, v := range vecs {
		if v != nil {
			dim = len(v)
			break
		}
	}
	if dim == 0 {
		return
	}
	if cs.only >= 0 {
		q := vecs[cs.only]
		if q == nil {
			return
		}
		for i, v := range vecs {
			if v != nil && int32(i) != cs.only && vector.Dot(q, v) >= threshold {
				cs.add(cs.only, int32(i), chEmbedding)
			}
		}
		return
	}
	var sigs [][lshTables]uint16
	if cache != nil {
		cache.mu.Lock()
		defer cache.mu.Unlock()
		if cache.n == countVecs(vecs) && len(cache.sigs) == len(vecs) {
			sigs = cache.sigs
		}
	}
	if sigs == nil {
		sigs = simhash(vecs, dim)
		if cache != nil {
			cache.sigs, cache.n = sigs, countVecs(vecs)
		}
	}
	buckets := map[uint16][]int32{}
	for t := 0; t < lshTables; t++ {
		clear(buckets)
		for i, v := range vecs {
			if v != nil {
				buckets[sigs[i][t]] = append(buckets[sigs[i][t]], int32(i))
			}
		}
		for _, l := range buckets {
			if len(l) < 2 || len(l) > lshBucket {
				continue
			}
			for a := range l {
				for b := a + 1; b < len(l); b++ {
					x, y := l[a], l[b]
					earlier := false // compared in an earlier table
					for e := 0; e < t && !earlier; e++ {
						earlier = sigs[x][e] == sigs[y][e]
					}
					if !earlier && vector.Dot(vecs[x], vecs[y]) >= threshold {
						cs.add(x, y, chEmbedding)
					}
				}
			}
		}
	}
}

// lshCache keeps the signatures of one set of vectors: a dupIndex is
// per registry version, and within one the vectors change only as
// embedding progresses (counted by n).
type lshCache struct {
	mu   sync.Mutex
	n    int
	sigs [][lshTables]uint16
}

func countVecs(vecs [][]float32) int {
	n := 0
	for _, v := range vecs {
		if v != nil {
			n++
		}
	}
	return n
}

// simhash returns each vector's lshTables signatures of lshBits bits,
// sampled from one 64-bit random-hyperplane sketch (fixed planes and
// samples: the same vectors always hash alike). Sampling the tables' bits
// from one sketch costs 64 dot products per vector instead of
// lshTables × lshBits.
func simhash(vecs [][]float32, dim int) [][lshTables]uint16 {
	rng := uint64(0x5eed)
	next := func() uint64 {
		rng += 0x9E3779B97F4A7C15
		z := rng
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		return z ^ (z >> 31)
	}
	planes := make([][]float32, 64)
	for p := range planes {
		v := make([]float32, dim)
		for d := range v {
			v[d] = float32(int64(next()>>11)-(1<<52)) / (1 << 52)
		}
		planes[p] = v
	}
	var sample [lshTables][lshBits]uint8
	for t := range sample {
		perm := make([]uint8, 64)
		for i := range perm {
			perm[i] = uint8(i)
		}
		for i := 63; i > 0; i-- {
			j := next() % uint64(i+1)
			perm[i], perm[j] = perm[j], perm[i]
		}
		copy(sample[t][:], perm[:lshBits])
	}
	sigs := make([][lshTables]uint16, len(vecs))
	for i, v := range vecs {
		if v == nil {
			continue
		}
		var sketch uint64
		for p, pl := range planes {
			if vector.Dot(v, pl) >= 0 {
				sketch |= 1 << p
			}
		}
		for t := range sample {
			var h uint16
			for b, bit := range sample[t] {
				h |= uint16(sketch>>bit&1) << b
			}
			sigs[i][t] = h
		}
	}
	return sigs
}

// neighborCandidates adds pairs of concepts linked from the same notes.
func neighborCandidates(cs *candidates, cons []dupConcept) {
	byNote := map[int64][]int32{}
	for i := range cons {
		for _, n := range cons[i].Neighbors {
			if n > 0 {
				byNote[n] = append(byNote[n], int32(i))
			}
		}
	}
	shared := map[uint64]int{}
	for _, l := range byNote {
		if len(l) < 2 || len(l) > maxNoteConcepts {
			continue
		}
		for a := range l {
			for b := a + 1; b < len(l); b++ {
				if cs.only < 0 || l[a] == cs.only || l[b] == cs.only {
					shared[pairKey(l[a], l[b])]++
				}
			}
		}
	}
	for k, n := range shared {
		if n >= 2 {
			cs.add(int32(k>>32), int32(uint32(k)), chNeighbors)
		}
	}
}

// judgement of one pair.
type judgement struct {
	score    float64
	fuzzy    float64
	evidence []string
	verdict  string // merge, review, or "" (no case)
	veto     string // do-not-merge reason
	names    [2]string
	folded   bool
	// weak marks a verdict that stands only when the two concepts are
	// linked beside the same things: a short clip or one the vault's
	// names use as a word ("doc", "func"), an acronym with letters from
	// inside words ("DNA").
	weak bool
}

// compareNames judges two names of different concepts; vocab, when not
// nil, is the vault's words by the concepts using them. The rules run in
// order and the first that decides is the judgement; WordNet then
// settles what they leave open (byWordNet).
func compareNames(a, b *nameInfo, vocab map[string][]int32) judgement {
	j := compareSpelling(a, b, vocab)
	j.byWordNet(a, b, vocab)
	j.byAcronymLexicon(a, b)
	return j
}

// compareSpelling is compareNames by the rules of spelling alone.
func compareSpelling(a, b *nameInfo, vocab map[string][]int32) judgement {
	j := judgement{names: [2]string{a.text, b.text}}
	j.fuzzy = fuzzy.WRatio(a.proc, b.proc, 0)
	if a.folded == "" || b.folded == "" {
		return j
	}
	if j.byExactness(a, b) || j.bySpelling(a, b, vocab) {
		return j
	}
	lexOK, lexWeak := lexiconMatch(a, b)
	if lexOK && !lexWeak {
		// A standard short form written out: "Sgt." / "sergeant",
		// "Pt. Reyes" / "Point Reyes".
		j.byLexicon(false)
		return j
	}
	if j.byForms(a, b, vocab); lexOK && j.verdict == "" {
		// An ambiguous one ("bio", "doc") that no other rule
		// accepts: with context only.
		j.veto = ""
		j.byLexicon(true)
	}
	return j
}

// byLexicon makes j a review on a standard short form of the lexicon.
func (j *judgement) byLexicon(weak bool) {
	j.score, j.verdict = 0.85, VerdictReview
	j.evidence = append(j.evidence, "abbreviation", "standard_abbreviation")
	j.weak = weak
}

// byForms decides the pairs of a name and a shorter or otherwise worded
// form of it: acronyms, qualifiers, derived words and abbreviations.
func (j *judgement) byForms(a, b *nameInfo, vocab map[string][]int32) {
	short, long := a, b
	if len(short.content) > len(long.content) {
		short, long = long, short
	}
	if len(short.content) == len(long.content) && !short.acro && long.acro {
		short, long = long, short // "tuberculosis" / "TB"
	}
	if j.byShortForm(short, long, vocab) || j.byNarrowing(short, long) {
		return
	}
	if x, y, ok := derived(a.content, b.content); ok {
		j.veto = fmt.Sprintf("derived_word: %q and %q are different words", x, y)
		return
	}
	if len(a.content) == len(b.content) {
		j.byWords(a, b, vocab)
	}
}

// byExactness decides the pairs told apart by a name that must stay exact
// (a file, a code identifier), by their numbers or by an abbreviation's
// dot, and numeronyms.
func (j *judgement) byExactness(a, b *nameInfo) bool {
	// File names and code identifiers are exact: never merged with a
	// plain name, nor with another spelling of themselves.
	if a.file || b.file {
		j.veto = "file_name: a file name names that file only"
		return true
	}
	if a.ident || b.ident {
		j.veto = "code_identifier: a code identifier is exact"
		return true
	}
	if numeronym(a, b) || numeronym(b, a) {
		j.score, j.verdict = 0.85, VerdictReview
		j.evidence = append(j.evidence, "numeronym")
		return true
	}
	if !slices.Equal(a.numbers, b.numbers) && !numbersAgree(a, b) {
		j.veto = "version_number: the numbers differ (" + numberDiff(a.numbers, b.numbers) + ")"
		return true
	}
	if x, y, ok := letterVariant(a, b); ok {
		// "hepatitis A" / "hepatitis B", "Plan A" / "Plan B": letters
		// that number things.
		j.veto = fmt.Sprintf("version_letter: the letters differ (%s / %s)", x, y)
		return true
	}
	if dottedWord(a.text) != dottedWord(b.text) && a.compact == b.compact {
		// "Mass." is Massachusetts, not mass.
		j.veto = fmt.Sprintf("abbreviation_not_word: %q is an abbreviation, %q a word", a.text, b.text)
		return true
	}
	return false
}

// bySpelling decides the pairs of one name spelled otherwise: folded,
// spaced, British and American, a typo, a qualifier — or opposites.
func (j *judgement) bySpelling(a, b *nameInfo, vocab map[string][]int32) bool {
	if a.folded == b.folded {
		j.folded = true
		j.score, j.verdict = 1, VerdictMerge
		j.evidence = append(j.evidence, "folded_key")
		j.evidence = append(j.evidence, foldDetails(a, b)...)
		return true
	}
	if ka, kb := numberFolded(a), numberFolded(b); ka != "" && (ka == kb || ka == b.folded) || kb != "" && kb == a.folded {
		// "Formula One" / "Formula 1": one number, written as a word and
		// in digits.
		j.score, j.verdict = 0.95, VerdictMerge
		j.evidence = append(j.evidence, "number_spelling")
		return true
	}
	if a.compact == b.compact || a.full == b.full {
		// Before the opposites: "multi tenant" is "multitenant", spaced.
		j.score, j.verdict = 0.98, VerdictMerge
		j.evidence = append(j.evidence, "spacing")
		return true
	}
	if r := opposite(a.content, b.content); r != "" {
		j.veto = r
		return true
	}
	if spellingVariant(a, b) {
		// "colour" / "color", "catalogue" / "catalog", "organisation" /
		// "organization": one word in British and American spelling.
		j.score, j.verdict = 0.95, VerdictMerge
		j.evidence = append(j.evidence, "spelling_variant")
		return true
	}
	if d, ok := typo(a, b, vocab); ok {
		j.score, j.verdict = math.Max(0.9, j.fuzzy/100-0.01*float64(d-1)), VerdictMerge
		j.evidence = append(j.evidence, "typo")
		return true
	}
	if a.qualBase != "" && a.qualBase == b.qualBase && !slices.Equal(a.qual, b.qual) {
		// "Kansas City, Kansas" / "Kansas City, Missouri": one name
		// qualified two ways names two things.
		j.veto = fmt.Sprintf("different_qualifiers: %q and %q qualify one name otherwise", a.text, b.text)
		return true
	}
	if a.qualBase != "" && a.qualBase == b.folded || b.qualBase != "" && b.qualBase == a.folded {
		q, bare := a, b
		if q.qualBase == "" || q.qualBase != b.folded {
			q, bare = b, a
		}
		if initialUpper(a.text) != initialUpper(b.text) {
			// "Turkey" / "turkey (bird)", "Helm" / "helm (ship)": a
			// capitalised name and a common noun the qualifier
			// explains, as a typo keeps its case.
			return true
		}
		if allCapitals(bare.text) != allCapitals(qualifiedBase(q.text)) {
			// "DACH" / "Dach (roof)", "FINA" / "Fina (oil company)": an
			// acronym and a word.
			j.veto = fmt.Sprintf("acronym_and_word: %q and %q are written as two things", bare.text, q.text)
			return true
		}
		switch placeQualifier(q.qualBase, q.qual) {
		case placeOther:
			// "Manchester, New Hampshire", "Paris, Texas": the bare
			// name is a better-known place elsewhere.
			j.veto = fmt.Sprintf("qualified_other_place: %q is another place than the one its bare name is", q.text)
			return true
		case placeSame:
			j.score, j.verdict = 0.8, VerdictReview
			j.evidence = append(j.evidence, "qualifier", "place_region")
			return true
		}
		if q.qualParen {
			switch kind := parenQualifier(q); kind {
			case qualOther:
				// "Vivaldi (browser)", "Bauhaus (band)", "STD (C++)": a
				// thing named after the bare name, not it.
				j.veto = fmt.Sprintf("qualified_other_thing: %q names another thing of that name", q.text)
				return true
			case qualUnknown:
				// Which of the things of that name the bare one is:
				// the context says.
				j.weak = true
			}
		}
		j.score, j.verdict = 0.8, VerdictReview
		j.evidence = append(j.evidence, "qualifier")
		return true
	}
	return false
}

// eponymKey prefixes the keys of the token index under which a name of a
// thing named after a person files the surname ("Spinoza Prize" files
// "spinoza"): soleSurname does not count it as another use of the word.
const eponymKey = "\x00eponym "

// eponymHeads are the words that, after a surname, name a thing after the
// person ("Nobel Prize", "Planck Institute", "Doppler effect"): such a
// name does not make the surname alone mean anything but the person.
var eponymHeads = map[string]bool{
	"prize": true, "prizes": true, "award": true, "awards": true, "medal": true, "trophy": true,
	"lecture": true, "lectures": true, "fellowship": true, "scholarship": true, "chair": true,
	"institute": true, "institut": true, "museum": true, "foundation": true, "society": true,
	"memorial": true, "library": true, "archive": true, "archives": true, "gallery": true,
	"centre": true, "center": true, "school": true, "college": true, "hall": true,
	"effect": true, "equation": true, "equations": true, "theorem": true, "conjecture": true,
	"constant": true, "principle": true, "paradox": true, "lemma": true, "inequality": true,
	"distribution": true, "transform": true, "number": true, "numbers": true, "crater": true,
	"syndrome": true, "test": true, "scale": true, "cycle": true, "method": true,
}

// properKey prefixes the keys of the token index (dupIndex.token, the
// vocabulary the judging reads) under which a word is filed when it is
// part of a proper name of two words that is no person's ("River
// Shannon", "Goldman Sachs"): a surname so used names something else.
const properKey = "\x00proper "

// byShortForm decides the pairs of a name and its short form: an acronym,
// a surname, a country and a place named after it.
func (j *judgement) byShortForm(short, long *nameInfo, vocab map[string][]int32) bool {
	if ok, inner := acronymOf(short, long); ok {
		j.score, j.verdict = 0.8, VerdictReview
		j.evidence = append(j.evidence, "acronym")
		// Letters from inside words are a looser fit ("CSS" / "constraint
		// satisfaction"): with context only.
		j.weak = inner
		return true
	}
	if partialAcronym(short, long) {
		// "LRU cache" / "least recently used cache": the words around
		// the acronym are the same.
		j.score, j.verdict = 0.8, VerdictReview
		j.evidence = append(j.evidence, "acronym")
		return true
	}
	ok, weak := clippedCompound(short, long)
	if !ok {
		ok, weak = clippedCompound(long, short)
	}
	if ok {
		// "FinTech" / "financial technology", "infosec" /
		// "information security": a coined word of the other's
		// words' starts.
		j.score, j.verdict = 0.85, VerdictReview
		j.evidence = append(j.evidence, "abbreviation", "clipped_compound")
		j.weak = weak
		return true
	}
	if personName(short, long) {
		// A surname alone is as often a word, a place or a company
		// ("Ford", "Jordan", "Jackson"), or another person's ("Freud",
		// "Anna Freud"): with context only, unless it is none of these.
		// A given name of the longer list only (moreGivenNames) makes a
		// person's name only of a surname that is none of these: the
		// context tells "Freddie Mercury" from the planet no better
		// than it tells a place from a person.
		if sole := soleSurname(short, vocab); sole || !newGivenName(short, long) {
			// "Alan Turing" / "Turing": a surname and the full name.
			j.score, j.verdict = 0.8, VerdictReview
			j.evidence = append(j.evidence, "person_name")
			j.weak = !sole
			return true
		}
	}
	if countryPlace(short, long) {
		j.veto = fmt.Sprintf("country_and_place: %q is a place named after the country or region %q", long.text, short.text)
		return true
	}
	if cityPlace(short, long) {
		j.veto = fmt.Sprintf("city_and_place: %q is another place than the city %q", long.text, short.text)
		return true
	}
	return false
}

// byNarrowing decides the pairs of a name and a longer one containing it:
// the same with a generic head word, a kind of it, or narrower.
func (j *judgement) byNarrowing(short, long *nameInfo) bool {
	if len(short.content) < len(long.content) && qualifiedBy(short, long) {
		j.score, j.verdict = 0.8, VerdictReview
		j.evidence = append(j.evidence, "qualifier_word")
		return true
	}
	if categoryNoun(short, long) {
		// "Changi Airport", "measles virus", "dwarf planet Ceres": a
		// name and what it is, or another thing of that name ("Kyoto
		// Protocol" is not) — the context says.
		j.score, j.verdict = 0.8, VerdictReview
		j.evidence = append(j.evidence, "category_noun")
		j.weak = true
		return true
	}
	if cityBefore(short, long) || nationalityBefore(short, long) {
		// "Amsterdam Schiphol", "Boston Logan": a city before a coined
		// name says where it is, or is another thing ("Paris Hilton");
		// "English Premier League": a nationality before a proper name
		// of two words or more, likewise — the context says.
		j.score, j.verdict = 0.8, VerdictReview
		j.evidence = append(j.evidence, "place_before")
		j.weak = true
		return true
	}
	if len(short.content) < len(long.content) {
		switch {
		case hasPrefix(long.content, short.content) && allGeneric(long.content[len(short.content):]) &&
			(short.upper || !slices.ContainsFunc(long.content[len(short.content):], func(w string) bool { return productHeads[w] })) &&
			!isCity(short):
			// A city's "project" or "protocol" is no software of that
			// name ("Manhattan Project", "Montreal Protocol").
			j.score, j.verdict = 0.9, VerdictMerge
			j.evidence = append(j.evidence, "generic_head_word")
			return true
		case hasSuffix(long.content, short.content) || hasSuffix(long.parts, short.parts):
			j.veto = fmt.Sprintf("compound_and_head_word: %q is a kind of %q, not the same", long.text, short.text)
			return true
		case kindNounAfter(short, long):
			// "Trivy scanner", "Nextcloud server": a coined name and
			// the kind of thing it is, by WordNet.
			j.score, j.verdict = 0.8, VerdictReview
			j.evidence = append(j.evidence, "kind_noun")
			return true
		case insertedDescriptor(short, long):
			// "Mohs scale" / "Mohs hardness scale": a name after a
			// person or place, and one word inside it that says what
			// the thing measures or is for.
			j.score, j.verdict = 0.8, VerdictReview
			j.evidence = append(j.evidence, "inserted_word")
			return true
		case hasPrefix(long.content, short.content):
			j.veto = fmt.Sprintf("more_specific: %q narrows %q", long.text, short.text)
			return true
		}
	}
	return false
}

// byWords decides the pairs of names of as many words: one abbreviating
// the other's words, siblings differing by one word.
func (j *judgement) byWords(a, b *nameInfo, vocab map[string][]int32) bool {
	diff := -1
	n := 0
	abbr, weak := true, false
	for i := range a.content {
		if a.content[i] != b.content[i] {
			diff, n = i, n+1
			ok, w := shortens(a.content[i], b.content[i], len(a.content) == 1, a, b, vocab)
			abbr, weak = abbr && ok, weak || w
		}
	}
	if n >= 1 && abbr {
		j.score, j.verdict = 0.85, VerdictReview
		j.evidence = append(j.evidence, "abbreviation")
		j.weak = weak
		return true
	}
	if n == 1 {
		x, y := a.content[diff], b.content[diff]
		if rx, ry := []rune(x), []rune(y); min(len(rx), len(ry)) >= 5 && osa(rx, ry, 2) <= 2 {
			if len(a.content) >= 2 && twoWords(x, y) {
				// "Weight Election" / "Weight Selection": one English
				// word for another, so not one name spelt two ways.
				j.veto = fmt.Sprintf("different_word: %q and %q are two words", x, y)
			}
			return true // two spellings of one word, or two words: no call
		}
		if wordAcronym(a, b, x, y) || wordAcronym(b, a, y, x) {
			// "TV show" / "television show": an acronym of one long word
			// among the same words, loose as oneWordAcronym is: with
			// context only.
			j.score, j.verdict = 0.8, VerdictReview
			j.evidence = append(j.evidence, "acronym")
			j.weak = true
			return true
		}
		if len(a.content) >= 2 {
			j.veto = fmt.Sprintf("siblings: the names differ by one word (%q / %q)", x, y)
		} else {
			j.veto = fmt.Sprintf("different_words: %q and %q are different words", x, y)
		}
		return true
	}
	return false
}

// wordAcronym reports whether the word x of a, written in capitals
// among a's other words, is an acronym of the one word y of b
// (oneWordAcronym: "TV" of television).
func wordAcronym(a, b *nameInfo, x, y string) bool {
	i := slices.Index(a.all, x)
	return i >= 0 && slices.Contains(a.acroAt, i) && oneWordAcronym([]rune(x), []rune(y))
}

func numberDiff(a, b []string) string {
	f := func(s []string) string {
		if len(s) == 0 {
			return "none"
		}
		return strings.Join(s, ",")
	}
	return f(a) + " / " + f(b)
}

// foldDetails says what the folding removed.
func foldDetails(a, b *nameInfo) []string {
	var out []string
	la, lb := strings.ToLower(a.text), strings.ToLower(b.text)
	if stripAccents(la) != la || stripAccents(lb) != lb {
		out = append(out, "accents")
	}
	if !slices.Equal(a.all, b.all) {
		ca, cb := slices.Clone(a.content), slices.Clone(b.content)
		if !slices.Equal(ca, cb) {
			slices.Sort(ca)
			slices.Sort(cb)
			if slices.Equal(slices.Compact(ca), slices.Compact(cb)) && !slices.Equal(a.content, b.content) {
				out = append(out, "word_order")
			}
		}
		if len(a.all) != len(a.content) || len(b.all) != len(b.content) {
			out = append(out, "function_words")
		}
	}
	wa, wb := words(a.text), words(b.text)
	for _, w := range wa {
		if singular(w) != w && !slices.Contains(wb, w) {
			out = append(out, "singular_plural")
			break
		}
	}
	if !slices.Contains(out, "singular_plural") {
		for _, w := range wb {
			if singular(w) != w && !slices.Contains(wa, w) {
				out = append(out, "singular_plural")
				break
			}
		}
	}
	return out
}

// opposite reports two word lists that differ only by antonyms or a
// negating prefix ("supervised learning" / "unsupervised learning").
func opposite(a, b []string) string {
	da, db := wordDiff(a, b)
	for _, x := range da {
		for _, y := range db {
			if antonyms[[2]string{x, y}] {
				return fmt.Sprintf("opposites: %q / %q", x, y)
			}
			long, short := x, y
			if len(long) < len(short) {
				long, short = short, long
			}
			if len(short) > 3 && strings.HasSuffix(long, short) && slices.Contains(negationPrefixes, long[:len(long)-len(short)]) {
				return fmt.Sprintf("opposites: %q / %q", x, y)
			}
		}
	}
	// One-word names spelled with a negating prefix ("nonlinear").
	if len(a) == 1 && len(b) == 1 {
		return ""
	}
	return ""
}

// typo reports names one or two edits apart in their compact form (two
// only for longer names), no edit touching a digit.
func typo(a, b *nameInfo, vocab map[string][]int32) (int, bool) {
	if len(a.content) == len(b.content) {
		// Two words that three names of the vault use each are words, not
		// a word and its misspelling ("Computer back" / "Computer Black",
		// "Mount Word" / "Mount World"): a typo is in few names.
		for i := range a.content {
			x, y := a.content[i], b.content[i]
			if x != y && len(vocab[x]) >= 3 && len(vocab[y]) >= 3 {
				return 0, false
			}
			// Two English words are two words ("desert" / "dessert",
			// "stationary" / "stationery"), whatever the vault holds, and
			// so are compounds of one word and two others ("Firestone" /
			// "Firestore").
			if x != y && (twoWords(x, y) || twoCompounds(x, y)) {
				return 0, false
			}
		}
	}
	if twoPlaces(a, b) {
		// "Colombia" / "Columbia": two places the gazetteer knows.
		return 0, false
	}
	if possessive(a.text, b.text) || possessive(b.text, a.text) {
		// "Christie" / "Christie's": a name and what is that person's
		// (a shop, a firm, a disease), not a misspelling.
		return 0, false
	}
	d, ok := typoOf(a, b, a.compact, b.compact)
	if !ok {
		d, ok = typoOf(a, b, a.raw, b.raw)
	}
	return d, ok
}

// possessive reports whether long is short with an apostrophe s
// ("Christie's" of "Christie").
func possessive(short, long string) bool {
	rest, ok := strings.CutPrefix(long, short)
	return ok && (rest == "'s" || rest == "’s")
}

func typoOf(a, b *nameInfo, ca, cb string) (int, bool) {
	ra, rb := []rune(ca), []rune(cb)
	n := min(len(ra), len(rb))
	if n < 5 {
		return 0, false
	}
	limit := 1
	if n >= 10 {
		limit = 2
	}
	d := osa(ra, rb, limit)
	if d > limit {
		return 0, false
	}
	// One letter replaced in a short word is as often another word
	// ("model"/"modal", "parser"/"parsed") as a typo; a first letter is
	// rarely mistyped, and changing it makes other words
	// ("asymmetric"/"symmetric").
	if len(ra) == len(rb) && n < 8 && d == 1 && !transposed(ra, rb) || ra[0] != rb[0] {
		return 0, false
	}
	// One word capitalised and one not are a name and a word ("Munich" /
	// "munch", "Apple" / "applet", "Mathematica" / "mathematics"): a
	// misspelling keeps the case it was written in.
	if len(a.content) == 1 && len(b.content) == 1 && initialUpper(a.text) != initialUpper(b.text) {
		return 0, false
	}
	// Two names written in capitals are acronyms, and an acronym a letter
	// from another is another acronym ("ANOVA" / "ANCOVA", "HDPE" /
	// "LDPE"): of the labelled sets' 80 pairs of such names within two
	// edits, every one is a hard negative.
	if allCapitals(a.text) && allCapitals(b.text) {
		return 0, false
	}
	// A city of the gazetteer one letter from an English word is the city
	// ("Medan" / "Median"); a misspelled city is no word ("Cincinatti").
	if len(a.content) == 1 && len(b.content) == 1 &&
		(isCity(a) && englishWords().has(b.content[0]) || isCity(b) && englishWords().has(a.content[0])) {
		return 0, false
	}
	// A letter added at the end of a short word makes another word more
	// often than a typo does ("photo" / "photon", "Scala" / "Scalar").
	if n < 8 && len(ra) != len(rb) && d == 1 && (strings.HasPrefix(string(ra), string(rb)) || strings.HasPrefix(string(rb), string(ra))) {
		return 0, false
	}
	// A part written in capitals after a name is a word of its own
	// ("ReactOS" is React's OS, "paraML" is not "param"): not a typo.
	if addedPart(a, b) || addedPart(b, a) {
		return 0, false
	}
	// Names split into words differently ("garbagecollection" / "garbage
	// collector") take one edit at most.
	if len(a.content) != len(b.content) && d > 1 {
		return 0, false
	}
	// Word-level: a one-word change between multi-word names must be a
	// typo of that word, not another word ("linear"/"linker").
	if len(a.content) == len(b.content) && len(a.content) >= 2 {
		for i := range a.content {
			x, y := []rune(a.content[i]), []rune(b.content[i])
			if string(x) != string(y) && (min(len(x), len(y)) < 4 || x[0] != y[0] || osa(x, y, 1) > 1 && min(len(x), len(y)) < 10) {
				return 0, false
			}
		}
	}
	return d, true
}

// addedPart reports whether long is short's parts and one more, written
// in capitals ("ReactOS" of "React", "paraML" against "param").
func addedPart(short, long *nameInfo) bool {
	if len(long.parts) < 2 {
		return false
	}
	last := long.parts[len(long.parts)-1]
	if len(last) < 2 || !strings.Contains(long.text, strings.ToUpper(last)) {
		return false
	}
	head := strings.Join(long.parts[:len(long.parts)-1], "")
	return strings.HasPrefix(short.raw, head) && len([]rune(short.raw))-len([]rune(head)) <= 1
}

// qualifiedBase is text before its qualifier: before a comma or an
// opening parenthesis ("Fina" of "Fina (oil company)").
func qualifiedBase(text string) string {
	if i := strings.IndexAny(text, ",("); i >= 0 {
		return strings.TrimSpace(text[:i])
	}
	return text
}

// allCapitals reports whether s has two letters or more and every letter
// of it is upper case ("ANOVA", "BRCA1", "U.S.A.").
func allCapitals(s string) bool {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			if !unicode.IsUpper(r) {
				return false
			}
			n++
		}
	}
	return n >= 2
}

// initialUpper reports whether the first letter of s is upper case.
func initialUpper(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return unicode.IsUpper(r)
		}
	}
	return false
}

// wordDiff returns a's words not in b and b's words not in a.
func wordDiff(a, b []string) (da, db []string) {
	for _, w := range a {
		if !slices.Contains(b, w) {
			da = append(da, w)
		}
	}
	for _, w := range b {
		if !slices.Contains(a, w) {
			db = append(db, w)
		}
	}
	return da, db
}

// derived reports names whose words differ by one word each way, one
// being the other plus a derivational suffix ("Maximization Transform" /
// "Transformer Maximization", "process" / "processor"): a word and its
// derivation name different things.
func derived(a, b []string) (string, string, bool) {
	da, db := wordDiff(a, b)
	if len(da) != 1 || len(db) != 1 {
		return "", "", false
	}
	x, y := da[0], db[0]
	if len(x) > len(y) {
		x, y = y, x
	}
	if len(x) < 4 || !strings.HasPrefix(y, x) || len(y)-len(x) < 2 || !derivationSuffixes[y[len(x):]] {
		return "", "", false
	}
	return da[0], db[0], true
}

// transposed reports whether equal-length a and b differ by one swap of
// adjacent letters.
func transposed(a, b []rune) bool {
	for i := range a {
		if a[i] != b[i] {
			return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && string(a[i+2:]) == string(b[i+2:])
		}
	}
	return false
}

// acronymOf reports whether short, written as an acronym, is one word
// made of the initials of long's content words, of all its words ("DoS":
// denial of service) or of its parts ("JSON": JavaScript Object
// Notation), or of those initials and letters from inside the words, in
// order ("DNA": deoxyribonucleic acid, "HTTP": hypertext transfer
// protocol; inner).
func acronymOf(short, long *nameInfo) (ok, inner bool) {
	w := acronymWord(short)
	if w == "" {
		return false, false
	}
	rw := []rune(w)
	if len(long.all) == 1 && len(long.parts) < 2 {
		// One long word: "TB" / tuberculosis, with context only.
		ok := !long.acro && oneWordAcronym(rw, []rune(long.all[0]))
		return ok, ok
	}
	if len(long.all) < 2 && len(long.parts) < 2 {
		return false, false
	}
	if len(long.all) >= 2 && len(long.all) <= 6 && initialsMatch(rw, long.all) {
		return true, false // function words given or not: "SoC", system on a chip
	}
	if digits := strings.IndexFunc(w, unicode.IsDigit) >= 0; digits && len(long.all) >= 2 && len(long.all) <= 6 && digitInitialsMatch(rw, long.all, true) {
		return true, false // "4WD" / four-wheel drive, "B2C" / business-to-consumer
	}
	for _, ws := range acronymSources(long) {
		if len(ws) == len(rw) {
			ok := true
			for i, x := range ws {
				ok = ok && []rune(x)[0] == rw[i]
			}
			if ok {
				return true, false
			}
		} else if innerAcronym(rw, ws) {
			inner = true
		}
	}
	return inner, inner
}

// innerAcronym reports whether the acronym a (3-6 letters) is the initials
// of ws (2 words or more, fewer than its letters) with a letter from
// inside long compound words: one letter at most from each word of 9
// letters or more, with 3 letters or more before it and 2 after ("DNA":
// deoxyribo-nucleic acid, "HTTP": hyper-text transfer protocol), two at
// most. Shorter words are not compounds: "Apache Kafka" is not ACK,
// "graph database" not GDB.
func innerAcronym(a []rune, ws []string) bool {
	if len(a) < 3 || len(a) > 6 || len(ws) < 2 || len(ws) >= len(a) || len(a)-len(ws) > 2 {
		return false
	}
	var split func(a []rune, ws []string) bool
	split = func(a []rune, ws []string) bool {
		if len(ws) == 0 {
			return len(a) == 0
		}
		w := []rune(ws[0])
		if len(a) == 0 || a[0] != w[0] {
			return false
		}
		if split(a[1:], ws[1:]) {
			return true
		}
		if len(w) < 9 || len(a) < 2 {
			return false
		}
		for i := 3; i <= len(w)-3; i++ {
			if w[i] == a[1] && split(a[2:], ws[1:]) {
				return true
			}
		}
		return false
	}
	return split(a, ws)
}

// innerInitials returns the concepts with a name whose acronym sources
// spell the acronym w by innerAcronym: the names with initials that are w
// without some inner letters (w's first letter kept), checked letter by
// letter.
func (x *dupIndex) innerInitials(w string) []int32 {
	a := []rune(w)
	if len(a) < 3 || len(a) > 6 {
		return nil
	}
	var out []int32
	// Every subset of a's letters after the first, of 1 to len(a)-2
	// letters, with the first: the initials of 2 to len(a)-1 words.
	for mask := 1; mask < 1<<(len(a)-1); mask++ {
		n := bits.OnesCount(uint(mask))
		if n+1 >= len(a) {
			continue
		}
		key := []rune{a[0]}
		for i := 1; i < len(a); i++ {
			if mask&(1<<(i-1)) != 0 {
				key = append(key, a[i])
			}
		}
		for _, c := range x.initials[string(key)] {
			if slices.Contains(out, c) {
				continue
			}
			if slices.ContainsFunc(x.names[c], func(n nameInfo) bool {
				return slices.ContainsFunc(acronymSources(&n), func(ws []string) bool { return innerAcronym(a, ws) })
			}) {
				out = append(out, c)
			}
		}
	}
	return out
}

// subsequence reports whether x's runes appear in y in order.
func subsequence(x, y []rune) bool {
	i := 0
	for _, c := range y {
		if i < len(x) && x[i] == c {
			i++
		}
	}
	return i == len(x)
}

// shortens reports whether one of the words x and y is a clipped
// ("config"/"configuration", 3+ letters) or contracted ("dept"/
// "department", "mt"/"mount": first and last letter kept, 2-5 letters)
// form of the other. For one-word names (single) the short form must be
// 3+ letters, at most 0.6 of the long one, and not the first part of a
// compound ("Java"/"JavaScript").
func shortens(x, y string, single bool, a, b *nameInfo, vocab map[string][]int32) (ok, weak bool) {
	if len(x) > len(y) {
		x, y = y, x
		a, b = b, a
	}
	rx, ry := []rune(x), []rune(y)
	if len(rx) < 2 || len(ry) < len(rx)+2 || rx[0] != ry[0] || a.acro || lexiconOther(x, y) {
		// A short form of the lexicon is a clip of its own long forms
		// only ("chem" / "chemtrail").
		return false, false
	}
	if single && (len(rx) < 3 || len(ry) < 6 || 2*len(rx) > len(ry)+1 || len(b.parts) > 1 || a.upper != b.upper) {
		// A proper name is not a clip of a common noun ("Intel"/
		// "intelligence").
		return false, false
	}
	// A short word is as often a word of its own ("data"/"database"):
	// a one-word clip under 4 letters or of a word under 9 stands only
	// with context ("doc"/"document", "func"/"function").
	weak = single && (len(rx) < 4 || len(ry) < 9 || 2*len(rx) > len(ry))
	if strings.HasPrefix(y, x) {
		// A clip, not a word and its suffix ("north"/"northern",
		// "token"/"tokenization"); a word the vault uses in three names
		// or more ("gene"/"generative") only with context.
		if len(rx) < 3 || derivationSuffixes[y[len(x):]] {
			return false, false
		}
		return true, weak || len(vocab[x]) >= 3
	}
	// A contraction keeps the first and last letters: only the standard
	// ones, since a short word is usually a word ("set"/"sentiment").
	return contractions[x] && rx[len(rx)-1] == ry[len(ry)-1] && subsequence(rx, ry), weak
}

// numeronym reports whether a is a numeronym of b's one word ("k8s" /
// "Kubernetes": first letter, the number of letters between, last letter).
func numeronym(a, b *nameInfo) bool {
	k := numeronymKey(a.text)
	if k == "" || len(b.content) != 1 {
		return false
	}
	r := []rune(b.content[0])
	if len(r) < 5 {
		r = []rune(b.raw)
	}
	return len(r) >= 5 && fmt.Sprintf("#%c%d%c", r[0], len(r)-2, r[len(r)-1]) == k
}

// lowerIn reports whether word w is written in lower case (or as an
// acronym) in text: "Redis database" names Redis, while in "Graph
// Database" the word is part of a title-cased name.
func lowerIn(text, w string) bool {
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if strings.EqualFold(f, w) || strings.EqualFold(singular(strings.ToLower(f)), w) {
			return f == strings.ToLower(f) || f == strings.ToUpper(f)
		}
	}
	return false
}

// qualifiedBy reports whether long is short with one or two words that do
// not change what it names ("SQL injection attack", "Apache Kafka",
// "Redis database", "general theory of relativity"): short's words in
// order within long's, and every other word a qualifier word (a weak one
// only after a name of two words, or after a capitalised name when the
// weak word is in lower case; a leading one, such as a vendor, only first
// and before a capitalised name).
func qualifiedBy(short, long *nameInfo) bool {
	extra := len(long.content) - len(short.content)
	if extra == 2 && short.upper && hasPrefix(long.content, short.content) && corporateSuffixes[long.content[len(long.content)-1]] {
		// A company's full name: "Toyota Motor Corporation" is Toyota.
		return true
	}
	if extra < 1 || extra > 2 || len(short.content) == 0 {
		return false
	}
	i := 0
	for k, w := range long.content {
		if i < len(short.content) && short.content[i] == w {
			i++
			continue
		}
		switch {
		case k > 0 && qualifierWords[w] && (!(len(short.content) == 1 && leadingQualifiers[short.content[0]]) || corporateSuffixes[w]) &&
			(short.upper || !corporateSuffixes[w] && !properPlaceWords[w]):
			// A company's name is not a place's: "Amazon River" is not
			// Amazon; "Nvidia Corporation" is Nvidia. A company, a
			// river or a galaxy is a capitalised name: "Alphabet Inc." is
			// not the alphabet, "antennae galaxies" not antennae.
		case k > 0 && weakQualifiers[w] && (len(short.content) >= 2 || short.upper && lowerIn(long.text, w)):
		case leadingQualifiers[w] && k == 0 && short.upper:
		case nationalities[w] && k == 0 && coinedName(short):
			// "German Bundesliga", "Italian Serie A": the country of a
			// name that is no English word ("German measles" is not
			// measles, "French Revolution" not a revolution).
		default:
			return false
		}
	}
	return i == len(short.content)
}

// insertedDescriptor reports whether long is short with one word
// inserted inside it, written in lower case, where short is a
// capitalised name and a lower-case head ("Mohs scale" / "Mohs hardness
// scale", "Petri dish" / "Petri culture dish", "Paris agreement" /
// "Paris climate agreement"): a descriptive word, not another name
// ("Gauss elimination" / "Gauss Jordan elimination", "Paris Peace
// Agreement"). The name before is no given name ("Alan Turing") and the
// word inserted no function word, number or letter.
func insertedDescriptor(short, long *nameInfo) bool {
	if len(short.all) < 2 || len(long.all) != len(short.all)+1 {
		return false
	}
	sw, lw := strings.Fields(short.text), strings.Fields(long.text)
	if len(sw) != len(short.all) || len(lw) != len(long.all) {
		return false // a word the folding splits or drops: positions differ
	}
	at := -1
	for i := 1; i < len(sw); i++ {
		if slices.Equal(long.all[:i], short.all[:i]) && slices.Equal(long.all[i+1:], short.all[i:]) {
			at = i
			break
		}
	}
	if at < 0 {
		return false
	}
	ins := lw[at]
	if first, _ := utf8.DecodeRuneInString(sw[0]); !unicode.IsUpper(first) || givenNames()[short.all[0]] || moreGivenNames()[short.all[0]] {
		return false
	}
	if ins != strings.ToLower(ins) || !isLetters(ins) || len([]rune(ins)) < 3 || functionWords[long.all[at]] {
		return false
	}
	for _, w := range sw[1:] {
		if w != strings.ToLower(w) {
			return false // "Paris Agreement": a name throughout, the inserted word must be one too
		}
	}
	return true
}

func hasPrefix(long, short []string) bool {
	return len(short) > 0 && len(short) < len(long) && slices.Equal(long[:len(short)], short)
}

func hasSuffix(long, short []string) bool {
	return len(short) > 0 && len(short) < len(long) && slices.Equal(long[len(long)-len(short):], short)
}

func allGeneric(ws []string) bool {
	for _, w := range ws {
		if !genericHeads[w] && !functionWords[w] {
			return false
		}
	}
	return len(ws) > 0
}

// nearWords reports whether some name of a and some name of b differ by at
// most one content word each way, or one's words are all in the other: the
// only pairs a shared word alone makes worth judging (abbreviations,
// siblings, compounds and head words).
func nearWords(a, b *dupConcept) bool { return nearNames(a.names, b.names) }

func nearNames(a, b []nameInfo) bool {
	for i := range a {
		for k := range b {
			if near(a[i].content, b[k].content) || near(a[i].parts, b[k].parts) {
				return true
			}
		}
	}
	return false
}

func near(x, y []string) bool {
	onlyX, onlyY := 0, 0
	for _, w := range x {
		if !slices.Contains(y, w) {
			onlyX++
		}
	}
	for _, w := range y {
		if !slices.Contains(x, w) {
			onlyY++
		}
	}
	return (onlyX <= 1 && onlyY <= 1) || onlyX == 0 || onlyY == 0
}

// judgePair judges two concepts on every pair of their names and on the
// pair's shared evidence.
func judgePair(a, b *dupConcept, ch uint32, informative bool) (DupPair, *DoNotMerge, bool) {
	var sim *float64
	if a.vec != nil && b.vec != nil {
		s := float64(vector.Dot(a.vec, b.vec))
		s = math.Round(s*1e6) / 1e6
		sim = &s
	}
	return judgeSim(a, b, ch, sim, informative)
}

// judgeSim is judgePair with the embedding similarity given (nil: none).
// It is the one rule behind analyze_duplicates' verdicts and
// merge_concepts' acceptance. informative is whether the vault's notes
// link names beside related things (contextInformative): only then does
// a review with no context in common become distinct_contexts.
func judgeSim(a, b *dupConcept, ch uint32, sim *float64, informative bool) (DupPair, *DoNotMerge, bool) {
	if markedDistinct(a, b) {
		return DupPair{}, &DoNotMerge{A: DupRef{a.id, a.label}, B: DupRef{b.id, b.label}, Reason: markedDistinctReason, Similarity: sim}, true
	}
	nj := judgeNames(a, b, ch)
	best, veto, bestFuzzy := nj.best, nj.veto, nj.fuzzy
	ctxShared, ctxKnown := nj.ctxShared, nj.ctxKnown
	shared := countShared(a.Neighbors, b.Neighbors)
	p := DupPair{A: DupRef{a.id, a.label}, B: DupRef{b.id, b.label}, Fuzzy: round2(bestFuzzy), Similarity: sim, SharedNeighbors: shared}
	defined := definedAs(a, b)
	switch {
	case defined > 0 && (best.verdict == "" || best.score < defineScore):
		// The notes write one as the abbreviation of the other: the
		// writer's word, whatever the spelling or the context says.
		best = judgement{verdict: VerdictReview, score: defineScore, evidence: []string{"defined_in_notes"}, names: [2]string{a.label, b.label}}
	case defined > 0:
		best.evidence = append(slices.Clone(best.evidence), "defined_in_notes")
	case best.verdict != "" && otherExpansion(a, b) && slices.Contains(best.evidence, "acronym"):
		// An acronym the notes define as a third concept: its initials
		// alone do not make it this one.
		best = judgement{}
	}
	if best.verdict == VerdictReview && shared < 2 && ctxKnown && ctxShared == 0 && informative && defined == 0 {
		// A likeness of spelling worth a review (a qualifier, an acronym,
		// a clipped word), and each is linked beside other things: two
		// concepts that look alike ("Paris" / "Paris, Texas", "demo" /
		// "democracy"). Merge-level spelling (folded key, spacing, a typo,
		// a generic head word) stands whatever the context.
		if bestFuzzy >= dnmFuzzy || (sim != nil && *sim >= embedReview) {
			return DupPair{}, &DoNotMerge{A: p.A, B: p.B, Reason: "distinct_contexts: no concept is linked beside both (" + best.evidence[0] + " alone)", Fuzzy: round2(bestFuzzy), Similarity: sim}, true
		}
		return DupPair{}, nil, true
	}
	switch {
	case best.verdict != "":
		p.Score, p.Verdict, p.Evidence, p.Names, p.FoldedKeyEqual = best.score, best.verdict, best.evidence, best.names, best.folded
	case veto.veto != "":
		if veto.fuzzy >= dnmFuzzy || (sim != nil && *sim >= embedReview) {
			return DupPair{}, &DoNotMerge{A: p.A, B: p.B, Reason: veto.veto, Fuzzy: round2(veto.fuzzy), Similarity: sim}, true
		}
		return DupPair{}, nil, true
	case sim != nil && (*sim >= embedReview || *sim >= 0.85 && bestFuzzy >= 90):
		// Close vectors (and, below embedReview, much alike spelling)
		// but no rule says how: worth a look.
		p.Score, p.Verdict = *sim*0.85, VerdictReview
		p.Names = [2]string{a.label, b.label}
		p.Evidence = append(p.Evidence, "fuzzy")
	case shared >= 3 && bestFuzzy >= 60:
		p.Score, p.Verdict = 0.6, VerdictReview
		p.Names = [2]string{a.label, b.label}
	default:
		return DupPair{wantsContext: nj.wants}, nil, false
	}
	if sim != nil && *sim >= 0.85 {
		p.Evidence = append(p.Evidence, "embedding")
	}
	if shared > 0 {
		p.Evidence = append(p.Evidence, "shared_neighbors")
	}
	if nj.picked && best.verdict != "" && (best.weak || slices.Contains(best.evidence, "acronym")) {
		p.Evidence = append(p.Evidence, "shared_context")
		p.picked = ctxShared
	}
	if p.Verdict == VerdictReview && shared >= 2 && p.Score >= 0.75 {
		p.Verdict = VerdictMerge // spelling evidence backed by the same notes
	}
	p.Score = math.Round(p.Score*1e4) / 1e4
	p.Evidence = append(p.Evidence, channelEvidence(ch)...)
	if sim != nil && *sim < mergeSimilarity && p.Verdict != VerdictMerge {
		// A merge verdict is accepted by merge_concepts whatever the
		// similarity (the same rule decides both); a review is not.
		p.Evidence = append(p.Evidence, fmt.Sprintf("similarity_below_%.1f: merge_concepts needs force=true", mergeSimilarity))
	}
	return p, nil, false
}

// nameJudgements is what two concepts' names say of them.
type nameJudgements struct {
	best      judgement // the strongest verdict of any two names
	veto      judgement // the most alike veto of two of their own names
	fuzzy     float64   // the best fuzzy score of any two names
	ctxShared int       // the context keys they share (contextShared)
	ctxKnown  bool
	picked    bool // an acronym of several concepts, this one picked by context
	wants     bool // a judgement dropped for want of loaded contexts
}

// judgeNames compares every name of a with every name of b, met on the
// channels ch, keeping a verdict that needs the context's support only
// when the two concepts have it.
func judgeNames(a, b *dupConcept, ch uint32) nameJudgements {
	var nj nameJudgements
	nj.ctxShared, nj.ctxKnown = contextShared(a, b)
	supported := func() bool {
		if nj.ctxKnown && nj.ctxShared >= contextSupport {
			nj.picked = true
			return true
		}
		nj.wants = nj.wants || !a.hasContext || !b.hasContext
		return false
	}
	for i := range a.names {
		for k := range b.names {
			j := compareNames(&a.names[i], &b.names[k], a.vocab)
			wn := slices.Contains(j.evidence, "wordnet")
			// lex: the acronym lexicon knows the one as the other's short
			// form; known: and the vault names no other of its meanings,
			// so that it picks this one among the concepts the initials
			// spell ("AI": artificial intelligence, not a random
			// "Adaptive Inference").
			lex := slices.Contains(j.evidence, evAcronymLexicon)
			known := lex && (ch == 0 || ch&chAcronymLexicon != 0 && ch&chAcronymLexiconSeveral == 0)
			if lex && ch&chAcronymLexiconSeveral != 0 && !supported() {
				j.verdict = ""
			}
			if wn && !known && ch&chAcronymOfSeveral != 0 && (a.names[i].acro || b.names[k].acro) && !supported() {
				// WordNet knows one expansion of an acronym the vault
				// spells several ways ("MFA": Master of Fine Arts, and
				// multi-factor authentication): the context picks.
				j.verdict = ""
			}
			if ch&chAcronymLexiconOther != 0 && !lex && slices.Contains(j.evidence, "acronym") && !supported() {
				// The lexicon's meaning of the acronym is a third concept
				// of the vault: initials alone pick no other ("TV" is
				// television, not "total variation").
				j.verdict = ""
			}
			if ch != 0 && ch&chAcronym == 0 && slices.Contains(j.evidence, "acronym") && !wn && !known {
				// An acronym counts only when its initials name one
				// concept (the acronym channel), not when another
				// channel met a second expansion, unless the two are
				// linked beside the same things.
				if ch&chAcronymOfSeveral == 0 || !supported() {
					j.verdict = ""
				}
			}
			if ch != 0 && ch&chCompound == 0 && slices.Contains(j.evidence, "clipped_compound") && !supported() {
				// Likewise a clipped compound: one expansion in the
				// vault ("FinTech"), else the context picks ("medtech":
				// medical or media technology).
				j.verdict = ""
			}
			if j.weak && j.verdict != "" && !supported() {
				j.verdict = ""
			}
			if ch&chSeveralQualified != 0 && slices.Contains(j.evidence, "qualifier") && !slices.Contains(j.evidence, "place_region") && !supported() {
				// The gazetteer settles which of the qualified forms
				// the bare name is ("Salzburg, Austria", not
				// "Salzburg (state)"); else the context.
				j.verdict = ""
			}
			nj.fuzzy = math.Max(nj.fuzzy, j.fuzzy)
			if j.verdict != "" && (nj.best.verdict == "" || j.score > nj.best.score) {
				nj.best = j
			}
			if j.veto == "" || !a.ownName(i) || !b.ownName(k) {
				continue // a note's alias never vetoes
			}
			if j.fuzzy > nj.veto.fuzzy || nj.veto.veto == "" {
				nj.veto = j
			}
		}
	}
	return nj
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// contextShared counts the keys linked beside both a and b, their own
// names' keys aside; known is whether both contexts are loaded and each
// has contextMin keys or more besides those names.
func contextShared(a, b *dupConcept) (shared int, known bool) {
	if !a.hasContext || !b.hasContext {
		return 0, false
	}
	own := func(k string) bool {
		return slices.ContainsFunc(a.names, func(n nameInfo) bool { return n.key == k }) ||
			slices.ContainsFunc(b.names, func(n nameInfo) bool { return n.key == k })
	}
	na, nb := 0, 0
	i, k := 0, 0
	for i < len(a.context) || k < len(b.context) {
		switch {
		case k == len(b.context) || i < len(a.context) && a.context[i] < b.context[k]:
			if !own(a.context[i]) {
				na++
			}
			i++
		case i == len(a.context) || b.context[k] < a.context[i]:
			if !own(b.context[k]) {
				nb++
			}
			k++
		default:
			if !own(a.context[i]) {
				na, nb, shared = na+1, nb+1, shared+1
			}
			i++
			k++
		}
	}
	return shared, na >= contextMin && nb >= contextMin
}

// contextSample is how many pairs that spelling alone makes one concept
// contextInformative looks at; contextCalibration how many of them must
// have both contexts known before it can say no.
const (
	contextSample      = 64
	contextCalibration = 5
)

// surelyOne reports whether a pair is one concept by spelling alone: a
// folded key, spacing, a typo or a British spelling.
func surelyOne(p DupPair) bool {
	return len(p.Evidence) > 0 && slices.Contains([]string{"folded_key", "spacing", "typo", "spelling_variant"}, p.Evidence[0])
}

// contextInformative reports whether the vault links names beside related
// things, so that two concepts linked beside nothing in common are two
// things: of the pairs in sure (one concept by spelling) whose contexts
// are both known, at least contextCalibration, a third or more share a
// key (in a vault linked at random almost none do: 0-2 of 64 in the
// string-level sets' random model, 22-43 of 42-64 in their topic model).
// A vault whose notes link concepts at random says nothing by context,
// and the distinct_contexts veto stays off; with too few such pairs to
// tell (a small vault), it is on.
func contextInformative(cons []dupConcept, sure [][2]int32) bool {
	known, shared := 0, 0
	for _, pr := range sure {
		n, ok := contextShared(&cons[pr[0]], &cons[pr[1]])
		if !ok {
			continue
		}
		known++
		if n > 0 {
			shared++
		}
	}
	return known < contextCalibration || 3*shared >= known
}

// needsContext reports whether a pair's judgement could change with the
// two concepts' contexts: a review, or a judgement dropped for want of
// them (an acronym of several concepts, a weak clip).
func needsContext(ch uint32, p DupPair) bool {
	return p.wantsContext || p.Verdict == VerdictReview
}

func countShared(a, b []int64) int {
	n, i, k := 0, 0, 0
	for i < len(a) && k < len(b) {
		switch {
		case a[i] == b[k]:
			n++
			i++
			k++
		case a[i] < b[k]:
			i++
		default:
			k++
		}
	}
	return n
}

// analyseVault runs every channel over all of cons (their stats loaded)
// and judges and groups the candidates.
func analyseVault(x *dupIndex, cons []dupConcept, minScore float64, loadContext func([]int32), defined ...[2]int32) ([]DupGroup, []DoNotMerge) {
	cs := &candidates{pairs: map[uint64]uint32{}, only: -1}
	x.gather(cs)
	for _, d := range defined {
		cs.add(d[0], d[1], chDefined)
	}
	embeddingCandidates(cs, vectorsOf(cons), embedReview, x.lsh)
	neighborCandidates(cs, cons)
	return analyse(cs, cons, minScore, loadContext)
}

func vectorsOf(cons []dupConcept) [][]float32 {
	vecs := make([][]float32, len(cons))
	for i := range cons {
		vecs[i] = cons[i].vec
	}
	return vecs
}

// analyse judges the candidate pairs of cs and groups them; with cs.only
// set, only that concept's group.
// loadContext, when not nil, loads the contexts of the concepts given
// (their hasContext set) before the pairs whose judgement they may change
// are judged again with them.
func analyse(cs *candidates, cons []dupConcept, minScore float64, loadContext func([]int32)) ([]DupGroup, []DoNotMerge) {
	keys, verdicts, informative := judgeCandidates(cs, cons, loadContext)
	pairs, dnm, apart := keptPairs(keys, verdicts, minScore)
	pairs = keepBestPicked(pairs)
	if cs.only >= 0 {
		pairs = judgeMembers(cons, pairs, cs.only, informative, minScore, apart)
	}
	find := joinMerges(pairs, apart)
	groups := groupPairs(cons, pairs, find)
	sortGroups(groups, dnm)
	return groups, dnm
}

// judgedPair is a candidate pair of concepts (by index) and its judgement.
type judgedPair struct {
	a, b int32
	p    DupPair
}

// pairVerdict is the judgement of one candidate pair: skip when it was not
// judged (a word in common and nothing else).
type pairVerdict struct {
	p      DupPair
	no     *DoNotMerge
	vetoed bool
	skip   bool
}

// judgeCandidates judges every candidate pair of cs, by key order, and
// judges again with the concepts' contexts (loaded by loadContext) the
// pairs they may change; informative is whether contexts told the sure
// pairs apart from others.
func judgeCandidates(cs *candidates, cons []dupConcept, loadContext func([]int32)) (keys []uint64, first []pairVerdict, informative bool) {
	keys = make([]uint64, 0, len(cs.pairs))
	for k := range cs.pairs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	first = make([]pairVerdict, len(keys))
	var again []int
	var need []int32
	var sure [][2]int32 // pairs spelling alone makes one concept
	for i, k := range keys {
		a, b := int32(k>>32), int32(uint32(k))
		if cs.pairs[k] == chToken && !nearWords(&cons[a], &cons[b]) {
			first[i].skip = true // a word in common and nothing else
			continue
		}
		p, no, vetoed := judgePair(&cons[a], &cons[b], cs.pairs[k], false)
		first[i] = pairVerdict{p: p, no: no, vetoed: vetoed}
		if loadContext != nil && !vetoed && needsContext(cs.pairs[k], p) {
			again = append(again, i)
			for _, c := range []int32{a, b} {
				if !cons[c].hasContext {
					need = append(need, c)
				}
			}
		}
		if p.Verdict == VerdictMerge && len(sure) < contextSample && surelyOne(p) {
			sure = append(sure, [2]int32{a, b})
		}
	}
	if len(again) == 0 {
		return keys, first, false
	}
	for _, pr := range sure {
		for _, c := range pr {
			if !cons[c].hasContext {
				need = append(need, c)
			}
		}
	}
	slices.Sort(need)
	loadContext(slices.Compact(need))
	informative = contextInformative(cons, sure)
	for _, i := range again {
		a, b := int32(keys[i]>>32), int32(uint32(keys[i]))
		p, no, vetoed := judgePair(&cons[a], &cons[b], cs.pairs[keys[i]], informative)
		first[i] = pairVerdict{p: p, no: no, vetoed: vetoed}
	}
	return keys, first, informative
}

// keptPairs returns the judged pairs scoring at least minScore, the
// do-not-merge notes, and the vetoed pairs (never in one group).
func keptPairs(keys []uint64, verdicts []pairVerdict, minScore float64) ([]judgedPair, []DoNotMerge, map[uint64]bool) {
	var pairs []judgedPair
	var dnm []DoNotMerge
	apart := map[uint64]bool{}
	for i, k := range keys {
		v := verdicts[i]
		if v.skip {
			continue
		}
		if v.no != nil {
			dnm = append(dnm, *v.no)
		}
		if v.vetoed {
			apart[k] = true
			continue
		}
		if v.p.Verdict == "" || v.p.Score < minScore {
			continue
		}
		pairs = append(pairs, judgedPair{int32(k >> 32), int32(uint32(k)), v.p})
	}
	return pairs, dnm, apart
}

// keepBestPicked drops the pairs of a name that context matched to
// several concepts (PM: project manager and prime minister both written
// about nearby things) but the one with the most keys in common, all of
// them on a tie.
func keepBestPicked(pairs []judgedPair) []judgedPair {
	top := map[int32][2]int{} // concept -> best support, how many pairs have it
	// named are the concepts WordNet or the acronym lexicon pairs without
	// context: what the name means is known, and a weaker likeness the
	// context picked is another thing ("Pushkin": Alexander Pushkin, not
	// the Pushkin Museum; "CSS": cascading style sheets, not a name of
	// the same initials linked nearby).
	named := map[int32]bool{}
	for _, j := range pairs {
		if j.p.picked == 0 && (slices.Contains(j.p.Evidence, "wordnet") || slices.Contains(j.p.Evidence, evAcronymLexicon)) {
			named[j.a], named[j.b] = true, true
		}
	}
	for _, j := range pairs {
		if j.p.picked == 0 {
			continue
		}
		for _, c := range []int32{j.a, j.b} {
			switch t := top[c]; {
			case j.p.picked > t[0]:
				top[c] = [2]int{j.p.picked, 1}
			case j.p.picked == t[0]:
				top[c] = [2]int{t[0], t[1] + 1}
			}
		}
	}
	if len(top) == 0 {
		return pairs
	}
	return slices.DeleteFunc(pairs, func(j judgedPair) bool {
		if j.p.picked == 0 {
			return false
		}
		ta, tb := top[j.a], top[j.b]
		return j.p.picked < ta[0] || ta[1] > 1 || j.p.picked < tb[0] || tb[1] > 1 || named[j.a] || named[j.b]
	})
}

// judgeMembers adds, in the group of the concept only, the pairs among
// its members, marking the vetoed ones apart.
func judgeMembers(cons []dupConcept, pairs []judgedPair, only int32, informative bool, minScore float64, apart map[uint64]bool) []judgedPair {
	var members []int32
	for _, j := range pairs {
		members = append(members, j.a+j.b-only)
	}
	for i := range members {
		for k := i + 1; k < len(members); k++ {
			a, b := min(members[i], members[k]), max(members[i], members[k])
			p, _, vetoed := judgePair(&cons[a], &cons[b], 0, informative)
			if vetoed {
				apart[pairKey(a, b)] = true
			}
			if p.Verdict != "" && p.Score >= minScore {
				pairs = append(pairs, judgedPair{a, b, p})
			}
		}
	}
	return pairs
}

// joinMerges sorts pairs strongest first and joins the concepts of each
// merge pair into connected components, returning the find of their
// roots. A union that would put a vetoed pair in one group is refused,
// and its pair demoted to review.
func joinMerges(pairs []judgedPair, apart map[uint64]bool) func(int32) int32 {
	parent := map[int32]int32{}
	var find func(int32) int32
	find = func(i int32) int32 {
		p, ok := parent[i]
		if !ok || p == i {
			return i
		}
		r := find(p)
		parent[i] = r
		return r
	}
	slices.SortStableFunc(pairs, func(x, y judgedPair) int { return cmp.Compare(y.p.Score, x.p.Score) })
	comp := map[int32][]int32{}
	membersOf := func(r int32) []int32 {
		if l, ok := comp[r]; ok {
			return l
		}
		return []int32{r}
	}
	for n := range pairs {
		j := &pairs[n]
		if j.p.Verdict != VerdictMerge {
			continue
		}
		ra, rb := find(j.a), find(j.b)
		if ra == rb {
			continue
		}
		ma, mb := membersOf(ra), membersOf(rb)
		conflict := false
		for _, x := range ma {
			for _, y := range mb {
				conflict = conflict || apart[pairKey(x, y)]
			}
		}
		if conflict {
			j.p.Verdict = VerdictReview
			j.p.Evidence = append(j.p.Evidence, "joins_concepts_judged_apart")
			if s := j.p.Similarity; s != nil && *s < mergeSimilarity {
				j.p.Evidence = append(j.p.Evidence, fmt.Sprintf("similarity_below_%.1f: merge_concepts needs force=true", mergeSimilarity))
			}
			continue
		}
		root, other := min(ra, rb), max(ra, rb)
		parent[other] = root
		comp[root] = append(slices.Clone(ma), mb...)
		delete(comp, other)
	}
	return find
}

// groupPairs makes the groups: the connected components (by find) of the
// merge pairs. A review pair joins the group holding both its concepts,
// else it is a group of its own: a plausible pair never chains unrelated
// concepts together. Each group's members come in survivorOrder, the
// suggested target first.
func groupPairs(cons []dupConcept, pairs []judgedPair, find func(int32) int32) []DupGroup {
	comps := map[int64]*DupGroup{}
	memberSets := map[int64][]int32{}
	misspelt := map[int32]bool{} // the rarer spelling of a typo pair
	for n, j := range pairs {
		if slices.Contains(j.p.Evidence, "typo") {
			switch a, b := &cons[j.a], &cons[j.b]; {
			case a.support < b.support:
				misspelt[j.a] = true
			case b.support < a.support:
				misspelt[j.b] = true
			}
		}
		r := int64(find(j.a))
		if j.p.Verdict != VerdictMerge && find(j.a) != find(j.b) {
			r = -1 - int64(n)
		}
		g := comps[r]
		if g == nil {
			g = &DupGroup{Verdict: VerdictMerge}
			comps[r] = g
		}
		g.Pairs = append(g.Pairs, j.p)
		g.Score = math.Max(g.Score, j.p.Score)
		if j.p.Verdict == VerdictReview && r < 0 {
			g.Verdict = VerdictReview
		}
		for _, m := range []int32{j.a, j.b} {
			if !slices.Contains(memberSets[r], m) {
				memberSets[r] = append(memberSets[r], m)
			}
		}
	}
	groups := make([]DupGroup, 0, len(comps))
	for r, g := range comps {
		ms := memberSets[r]
		slices.SortFunc(ms, func(x, y int32) int { return survivorOrder(&cons[x], &cons[y], misspelt[x], misspelt[y]) })
		fillGroup(g, cons, ms)
		groups = append(groups, *g)
	}
	return groups
}

// fillGroup sets g's target, members and merge suggestion from its
// members ms (the target first) and orders its pairs strongest first.
func fillGroup(g *DupGroup, cons []dupConcept, ms []int32) {
	t := &cons[ms[0]]
	g.Target = DupRef{t.id, t.label}
	g.Merge = MergeSuggestion{Target: t.id, Sources: []string{}}
	for _, m := range ms {
		c := &cons[m]
		dm := DupMember{ID: c.id, Label: c.label, Mentions: c.Mentions, HasPage: c.HasPage}
		if c.Page != "" {
			dm.Page = noema.NoteURI(c.Page)
		}
		g.Members = append(g.Members, dm)
		if m != ms[0] {
			g.Merge.Sources = append(g.Merge.Sources, c.id)
		}
	}
	slices.SortStableFunc(g.Pairs, func(x, y DupPair) int {
		if c := cmp.Compare(y.Score, x.Score); c != 0 {
			return c
		}
		return cmp.Compare(x.A.Label+"\x00"+x.B.Label, y.A.Label+"\x00"+y.B.Label)
	})
}

// sortGroups orders the groups strongest first (then by the target's
// mentions and label) and the do-not-merge notes by fuzzy score.
func sortGroups(groups []DupGroup, dnm []DoNotMerge) {
	slices.SortFunc(groups, func(x, y DupGroup) int {
		if c := cmp.Compare(y.Score, x.Score); c != 0 {
			return c
		}
		if c := cmp.Compare(y.Members[0].Mentions, x.Members[0].Mentions); c != 0 {
			return c
		}
		return cmp.Compare(x.Target.Label+"\x00"+x.Target.ID, y.Target.Label+"\x00"+y.Target.ID)
	})
	slices.SortStableFunc(dnm, func(x, y DoNotMerge) int {
		if c := cmp.Compare(y.Fuzzy, x.Fuzzy); c != 0 {
			return c
		}
		return cmp.Compare(x.A.Label+"\x00"+x.B.Label, y.A.Label+"\x00"+y.B.Label)
	})
}

// survivorOrder orders a group's members: the suggested target first. A
// page that is a note of the vault comes first (merging it away would
// leave the note without its links and make an empty page for the
// survivor), then any page, then a name that is not the rarer spelling of
// a typo pair (am, bm: misspelt), then the most mentions, then older, then
// label and id.
func survivorOrder(a, b *dupConcept, am, bm bool) int {
	first := func(x, y bool) int {
		switch {
		case x == y:
			return 0
		case x:
			return -1
		}
		return 1
	}
	if c := first(a.realNote(), b.realNote()); c != 0 {
		return c
	}
	if c := first(a.HasPage, b.HasPage); c != 0 {
		return c
	}
	if c := first(!am, !bm); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Mentions, a.Mentions); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Created, b.Created); c != 0 {
		return c
	}
	if c := cmp.Compare(a.label, b.label); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// judgedDuplicates returns the ids of the sources that analyze_duplicates'
// rule puts in one group with target: a merge verdict with the target or
// with a source already joined. sim gives two concepts' embedding
// similarity (nil when there is none).
func (s *Service) judgedDuplicates(ctx context.Context, target *noema.Concept, sources []*noema.Concept,
	sim func(a, b *noema.Concept) (*float64, error)) (map[string]bool, error) {
	all := append([]*noema.Concept{target}, sources...)
	cons := make([]dupConcept, len(all))
	ids := make([]string, len(all))
	pos := map[string]int{}
	for i, c := range all {
		ids[i] = c.ID
		pos[c.ID] = i
		// No vault words: the rules that ask how many names use a word
		// (a typo's, a clip's, a surname's) take it as used by these
		// alone, so a merge accepts what analyze_duplicates proposes.
		cons[i] = dupConcept{id: c.ID, label: c.Label, vocab: map[string][]int32{}}
		for _, n := range append([]string{c.Label}, c.Aliases...) {
			cons[i].names = append(cons[i].names, analyseName(n))
		}
	}
	if di, ok := s.DB.(noema.DuplicateIndex); ok {
		err := di.DuplicateStats(ctx, ids, func(id string, mentions int, page string, explicit bool, created int64, nb []int64) {
			if i, ok := pos[id]; ok {
				cons[i].dupStats = dupStats{Mentions: mentions, HasPage: page != "", Page: page, Explicit: explicit, Created: created, Neighbors: nb}
			}
		})
		if err != nil {
			return nil, err
		}
	}
	for i, c := range all {
		cons[i].distinct = distinctKeys(c.Metadata[noema.DistinctFromKey])
	}
	if ci, ok := s.DB.(noema.ConceptContextIndex); ok {
		// The same evidence as analyze_duplicates: contexts too.
		if err := loadContexts(ctx, ci, ids, func(id string) *dupConcept { return &cons[pos[id]] }); err != nil {
			return nil, err
		}
	}
	if err := s.mergeDefinitions(ctx, cons, pos); err != nil {
		return nil, err
	}
	joined := map[string]bool{}
	in := []int{0}
	for grew := true; grew; {
		grew = false
		for i := 1; i < len(all); i++ {
			if joined[all[i].ID] {
				continue
			}
			for _, k := range in {
				sv, err := sim(all[i], all[k])
				if err != nil {
					return nil, err
				}
				// The context veto turns reviews away, never a merge
				// verdict: informative changes nothing here.
				if p, _, _ := judgeSim(&cons[i], &cons[k], 0, sv, true); p.Verdict == VerdictMerge {
					joined[all[i].ID] = true
					in = append(in, i)
					grew = true
					break
				}
			}
		}
	}
	return joined, nil
}

// mergeDefinitions gives cons (pos: index by id) the abbreviations the
// notes define, as analyze_duplicates reads them, when one of their names
// is a short form and the index reads notes.
func (s *Service) mergeDefinitions(ctx context.Context, cons []dupConcept, pos map[string]int) error {
	nt, ok := s.DB.(noema.NoteTextIndex)
	if !ok || !slices.ContainsFunc(cons, func(c dupConcept) bool {
		return slices.ContainsFunc(c.names, func(n nameInfo) bool { return shortForm(n.text) })
	}) {
		return nil
	}
	m, err := s.matcher(ctx)
	if err != nil {
		return err
	}
	m.dups.once.Do(func() { m.dups.x = buildDupIndex(m) })
	x := m.dups.x
	var of []int32
	for _, c := range cons {
		if i, ok := x.pos[c.id]; ok {
			of = append(of, i)
		}
	}
	defs, err := definitionsAmong(ctx, nt, x, of)
	if err != nil {
		return err
	}
	setDefinitions(defs, func(c int32) *dupConcept {
		if i, ok := pos[m.ids[c]]; ok {
			return &cons[i]
		}
		return &dupConcept{id: m.ids[c]} // a third concept: its expansion still counts
	})
	return nil
}

// loadContexts sets the context of each concept among ids (con gives it).
func loadContexts(ctx context.Context, ci noema.ConceptContextIndex, ids []string, con func(id string) *dupConcept) error {
	return ci.ConceptContexts(ctx, ids, contextNoteLinks, func(id string, keys []string) {
		c := con(id)
		c.context, c.hasContext = keys, true
	})
}

// dupState is the duplicate index cached with a matcher.
type dupState struct {
	once sync.Once
	x    *dupIndex
}

// Duplicates is analyze_duplicates: groups of concepts that are likely one,
// with the evidence for each pair, the suggested survivor and a merge ready
// for merge_concepts, and the look-alike pairs that must not be merged.
// emb may be nil (no embedding evidence).
func (s *Service) Duplicates(ctx context.Context, in DuplicatesInput, emb Embeddings) (*DuplicatesResult, error) {
	limit, err := checkDuplicates(in)
	if err != nil {
		return nil, err
	}
	di, ok := s.DB.(noema.DuplicateIndex)
	if !ok {
		return nil, noema.Errorf(noema.EINTERNAL, "the index cannot report concept statistics")
	}
	m, err := s.matcher(ctx)
	if err != nil {
		return nil, err
	}
	m.dups.once.Do(func() { m.dups.x = buildDupIndex(m) })
	r := &dupRun{di: di, m: m, x: m.dups.x, minScore: in.MinScore, only: -1}
	res := &DuplicatesResult{Groups: []DupGroup{}, DoNotMerge: []DoNotMerge{}, Offset: in.Offset, Limit: limit, Concepts: len(m.ids), Warnings: []string{}}
	if c := strings.TrimSpace(in.Concept); c != "" {
		if r.only, err = s.dupFocus(ctx, r.x, c); err != nil {
			return nil, err
		}
	}
	r.cons = make([]dupConcept, len(m.ids))
	for i, id := range m.ids {
		r.cons[i] = dupConcept{id: id, label: m.labels[i], names: r.x.names[i], support: r.x.support(i), vocab: r.x.token}
	}
	err = loadDistinctMarks(ctx, s.DB, func(id string) *dupConcept {
		if i, ok := r.x.pos[id]; ok {
			return &r.cons[i]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if emb != nil {
		r.addVectors(ctx, emb, res)
	}
	if ci, ok := s.DB.(noema.ConceptContextIndex); ok {
		r.ci = ci
	}
	if nt, ok := s.DB.(noema.NoteTextIndex); ok {
		r.nt = nt
	}
	var groups []DupGroup
	var dnm []DoNotMerge
	if r.only < 0 {
		groups, dnm, err = r.analyseAll(ctx)
	} else {
		groups, dnm, err = r.analyseConcept(ctx)
	}
	if err != nil {
		return nil, err
	}
	pageDuplicates(res, groups, dnm, in.Offset, limit)
	return res, nil
}

// checkDuplicates validates in and returns its limit, defaulted and
// clamped.
func checkDuplicates(in DuplicatesInput) (int, error) {
	if in.Offset < 0 {
		return 0, noema.Errorf(noema.EINVALID, "offset must be >= 0").WithParam("offset")
	}
	if in.MinScore < 0 || in.MinScore > 1 || math.IsNaN(in.MinScore) {
		return 0, noema.Errorf(noema.EINVALID, "min_score must be between 0 and 1").WithParam("min_score")
	}
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultDuplicateLimit
	}
	return min(limit, MaxDuplicateLimit), nil
}

// dupFocus returns the index in x of the concept ref names.
func (s *Service) dupFocus(ctx context.Context, x *dupIndex, ref string) (int32, error) {
	con, err := s.Get(ctx, ref)
	if err != nil {
		return -1, err
	}
	i, found := x.pos[con.ID]
	if !found {
		return -1, noema.Errorf(noema.ENOTFOUND, "no concept %q (try find_concepts)", ref)
	}
	return i, nil
}

// dupRun is one analyze_duplicates call: the concepts with what is loaded
// of them, and the index that loads the rest.
type dupRun struct {
	di       noema.DuplicateIndex
	ci       noema.ConceptContextIndex // nil: no context evidence
	nt       noema.NoteTextIndex       // nil: no definitions read in notes
	m        *matcher
	x        *dupIndex
	cons     []dupConcept
	minScore float64
	only     int32 // the concept whose group is asked for, -1 for all
}

// addVectors gives the concepts their embeddings, warning of what is
// missing and of an embedder that sees only spelling.
func (r *dupRun) addVectors(ctx context.Context, emb Embeddings, res *DuplicatesResult) {
	name, vecs, err := emb.ConceptVectors(ctx)
	res.Embedder = name
	if err != nil {
		res.Warnings = append(res.Warnings, "embedding similarity: "+noema.ErrorMessage(err))
	}
	missing := 0
	for i := range r.cons {
		r.cons[i].vec = vecs[r.cons[i].id]
		if r.cons[i].vec == nil {
			missing++
		}
	}
	if missing > 0 && len(vecs) > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d of %d concepts have no vector yet: their pairs have no embedding evidence", missing, len(r.cons)))
	}
	if strings.HasPrefix(name, "builtin/") {
		res.Warnings = append(res.Warnings, "the builtin embedder sees spelling, not meaning: synonyms spelled differently are not found; configure a model embedder for those")
	}
}

// loadStats loads the statistics of the concepts among ids (all for nil).
func (r *dupRun) loadStats(ctx context.Context, ids []string) error {
	return r.di.DuplicateStats(ctx, ids, func(id string, mentions int, page string, explicit bool, created int64, nb []int64) {
		if i, ok := r.x.pos[id]; ok {
			r.cons[i].dupStats = dupStats{Mentions: mentions, HasPage: page != "", Page: page, Explicit: explicit, Created: created, Neighbors: nb}
		}
	})
}

// contextLoader returns analyse's loadContext, nil without a context
// index; the first error it meets is left in *errp.
func (r *dupRun) contextLoader(ctx context.Context, errp *error) func([]int32) {
	if r.ci == nil {
		return nil
	}
	return func(idx []int32) {
		ids := make([]string, len(idx))
		for i, c := range idx {
			ids[i] = r.m.ids[c]
		}
		*errp = loadContexts(ctx, r.ci, ids, func(id string) *dupConcept { return &r.cons[r.x.pos[id]] })
	}
}

// loadDefinitions reads the abbreviations the notes define
// (definitions.go) among all concepts (of for nil), or those of the
// concepts of: each concept's short forms, and the short forms the notes
// write beside its names. It sets the concepts' definitions and returns
// the pairs.
func (r *dupRun) loadDefinitions(ctx context.Context, of []int32) ([][2]int32, error) {
	if r.nt == nil {
		return nil, nil
	}
	defs, err := definitionsAmong(ctx, r.nt, r.x, of)
	if err != nil {
		return nil, err
	}
	return setDefinitions(defs, func(c int32) *dupConcept { return &r.cons[c] }), nil
}

// analyseAll judges and groups the candidates among all concepts.
func (r *dupRun) analyseAll(ctx context.Context) ([]DupGroup, []DoNotMerge, error) {
	if err := r.loadStats(ctx, nil); err != nil {
		return nil, nil, err
	}
	var ctxErr error
	defined, err := r.loadDefinitions(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	groups, dnm := analyseVault(r.x, r.cons, r.minScore, r.contextLoader(ctx, &ctxErr), defined...)
	if ctxErr != nil {
		return nil, nil, ctxErr
	}
	return groups, dnm, nil
}

// analyseConcept judges the candidates of one concept and returns the
// groups holding it.
func (r *dupRun) analyseConcept(ctx context.Context) ([]DupGroup, []DoNotMerge, error) {
	only, x, m := r.only, r.x, r.m
	cs := &candidates{pairs: map[uint64]uint32{}, only: only}
	x.gather(cs)
	embeddingCandidates(cs, vectorsOf(r.cons), embedReview, x.lsh)
	err := r.di.ConceptsSharingNotes(ctx, m.ids[only], func(other string, n int) {
		if i, ok := x.pos[other]; ok && n >= 2 {
			cs.add(only, i, chNeighbors)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	defined, err := r.loadDefinitions(ctx, []int32{only})
	if err != nil {
		return nil, nil, err
	}
	for _, d := range defined {
		if d[0] == only || d[1] == only {
			cs.add(d[0], d[1], chDefined)
		}
	}
	// Stats of the concept and its candidates, and of their
	// candidates' candidates' ... is not needed: the group is the
	// concept and the concepts judged alike to it.
	ids := []string{m.ids[only]}
	for k := range cs.pairs {
		a, b := int32(k>>32), int32(uint32(k))
		ids = append(ids, m.ids[a+b-only])
	}
	if err := r.loadStats(ctx, ids); err != nil {
		return nil, nil, err
	}
	var ctxErr error
	groups, dnm := analyse(cs, r.cons, r.minScore, r.contextLoader(ctx, &ctxErr))
	if ctxErr != nil {
		return nil, nil, ctxErr
	}
	id := m.ids[only]
	var keep []DupGroup
	for _, g := range groups {
		if slices.ContainsFunc(g.Members, func(mm DupMember) bool { return mm.ID == id }) {
			keep = append(keep, g)
		}
	}
	return keep, dnm, nil
}

// pageDuplicates puts the page of groups from offset, at most limit, and
// the first do-not-merge pairs in res.
func pageDuplicates(res *DuplicatesResult, groups []DupGroup, dnm []DoNotMerge, offset, limit int) {
	res.Total = len(groups)
	if offset < len(groups) {
		res.Groups = groups[offset:min(len(groups), offset+limit)]
	}
	if res.Groups == nil {
		res.Groups = []DupGroup{}
	}
	res.HasMore = offset+len(res.Groups) < res.Total
	if len(dnm) > MaxDuplicateLimit {
		dnm = dnm[:MaxDuplicateLimit]
	}
	if dnm != nil {
		res.DoNotMerge = dnm
	}
}
