package concepts

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

var wordNetDir = flag.String("wordnet-dir", "", "TestGenerateWordNet: derive wordnet.txt.gz from the WordNet 3.0 database in this folder (data.noun, index.noun and noun.exc; Debian's wordnet-base puts them in /usr/share/wordnet)")

// TestGenerateWordNet writes wordnet.txt.gz from a WordNet 3.0 database
// (go test ./concepts -run TestGenerateWordNet -wordnet-dir /usr/share/wordnet).
// Only development needs WordNet: the derived file is shipped.
func TestGenerateWordNet(t *testing.T) {
	if *wordNetDir == "" {
		t.Skip("needs -wordnet-dir")
	}
	data := fileLines(t, filepath.Join(*wordNetDir, "data.noun"))
	synsets := wordNetNouns(t, data)
	lines := wordNetSynonymLines(synsets)
	lines = append(lines, wordNetPluralLines(t, filepath.Join(*wordNetDir, "noun.exc"))...)
	lines = append(lines, wordNetKindLines(t, data, fileLines(t, filepath.Join(*wordNetDir, "index.noun")))...)
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	fmt.Fprintln(zw, "#\tderived from WordNet 3.0 by TestGenerateWordNet (concepts/wordnet_gen_test.go); WordNet's notice:")
	for _, l := range wordNetNotice(data) {
		fmt.Fprintln(zw, "#\t"+l)
	}
	for _, l := range lines {
		fmt.Fprintln(zw, l)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("wordnet.txt.gz", buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d lines, %d bytes", len(lines), buf.Len())
}

// wordNetNotice is the licence and copyright notice at the head of a
// WordNet data file's lines, which every copy carries.
func wordNetNotice(lines []string) []string {
	var out []string
	for _, line := range lines {
		if !strings.HasPrefix(line, "  ") {
			break
		}
		_, text, _ := strings.Cut(strings.TrimSpace(line), " ")
		out = append(out, strings.TrimSpace(text))
	}
	return out
}

// fileLines are the lines of the file at path.
func fileLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\n")
}

// wnSynset is one noun synonym set of data.noun.
type wnSynset struct {
	offset  string
	lexFile string   // its category: 18 people, 28 times, 15 places…
	lemmas  []string // as written, "_" replaced by a space
	// instance: the set is one thing ("Albert Einstein", an instance of
	// physicist), not a class.
	instance bool
}

// wordNetNouns are the synonym sets of data.noun's lines.
func wordNetNouns(t *testing.T, lines []string) []wnSynset {
	t.Helper()
	var out []wnSynset
	for _, line := range lines {
		if line == "" || strings.HasPrefix(line, "  ") {
			continue // the licence header
		}
		fs := strings.Fields(line)
		n, err := strconv.ParseInt(fs[3], 16, 32)
		if err != nil {
			t.Fatalf("%s: %v", fs[0], err)
		}
		s := wnSynset{offset: fs[0], lexFile: fs[1], instance: slices.Contains(fs, "@i")}
		for i := 0; i < int(n); i++ {
			s.lemmas = append(s.lemmas, strings.ReplaceAll(fs[4+2*i], "_", " "))
		}
		out = append(out, s)
	}
	return out
}

// lexPerson is data.noun's category of people (noun.person).
const lexPerson = "18"

// wnForm is a lemma as written in one case: "AI" and "ai" are two forms
// (an acronym, a sloth), "Einstein" and "einstein" too (the physicist, a
// genius).
func wnForm(lemma string) string {
	if strings.IndexFunc(lemma, unicode.IsUpper) >= 0 {
		return strings.ToLower(lemma) + "^"
	}
	return lemma
}

// wordNetSynonymLines are the "s" and "v" lines: every synonym set with
// two lemmas alike in writing (stringRelated), the lemmas without such a
// partner left out, each marked "~" when the set is not its dominant
// sense; and the lemmas of one form whose senses are the same sets.
func wordNetSynonymLines(synsets []wnSynset) []string {
	senses := map[string][]string{} // of each form
	for _, s := range synsets {
		for _, l := range s.lemmas {
			if f := wnForm(l); !slices.Contains(senses[f], s.offset) {
				senses[f] = append(senses[f], s.offset)
			}
		}
	}
	instances := map[string][]string{} // of people
	for _, s := range synsets {
		if s.instance && s.lexFile == lexPerson {
			for _, l := range s.lemmas {
				instances[wnForm(l)] = append(instances[wnForm(l)], s.offset)
			}
		}
	}
	// A form names the set without context when it has no other sense,
	// or when it is one person's name and its other senses are classes
	// ("Einstein": Albert Einstein, and a genius) — not an acronym ("RAF":
	// the Red Army Faction, and the Royal Air Force, no instance).
	dominant := func(lemma, offset string) bool {
		f := wnForm(lemma)
		in := instances[f]
		return len(senses[f]) == 1 || strings.HasSuffix(f, "^") && !acronymText(lemma) && len(in) == 1 && in[0] == offset
	}
	var out []string
	variants := map[string]bool{}
	for _, s := range synsets {
		names := make([]nameInfo, len(s.lemmas))
		for i, l := range s.lemmas {
			names[i] = analyseName(l)
		}
		var kept []string
		for i := range names {
			related := false
			for k := range names {
				if k != i && names[i].folded != "" && names[k].folded != "" && names[i].folded != names[k].folded && stringRelated(&names[i], &names[k]) {
					related = true
					break
				}
			}
			if !related {
				continue
			}
			l := s.lemmas[i]
			if !dominant(l, s.offset) {
				l = "~" + l
			}
			kept = append(kept, l)
		}
		if len(kept) < 2 {
			continue
		}
		out = append(out, "s"+s.lexFile+"\t"+strings.Join(kept, "|"))
		// Forms with the same senses as another of this set.
		for _, a := range kept {
			a = strings.TrimPrefix(a, "~")
			var group []string
			for _, b := range kept {
				b = strings.TrimPrefix(b, "~")
				if len(senses[wnForm(a)]) > 1 && slices.Equal(sortedCopy(senses[wnForm(a)]), sortedCopy(senses[wnForm(b)])) {
					group = append(group, b)
				}
			}
			if len(group) >= 2 && !variants[strings.Join(group, "|")] {
				variants[strings.Join(group, "|")] = true
				out = append(out, "v\t"+strings.Join(group, "|"))
			}
		}
	}
	return out
}

func sortedCopy(l []string) []string {
	c := slices.Clone(l)
	slices.Sort(c)
	return c
}

// wordNetPluralLines are the "p" lines: noun.exc's plurals of one word
// whose singular the folding does not find ("bases" of basis).
func wordNetPluralLines(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, line := range fileLines(t, path) {
		fs := strings.Fields(line)
		if len(fs) < 2 || strings.ContainsAny(fs[0], "_-") {
			continue
		}
		for _, s := range fs[1:] {
			if strings.ContainsAny(s, "_-") || analyseBase(fs[0]) == analyseBase(s) {
				continue
			}
			out = append(out, "p\t"+fs[0]+"|"+s)
		}
	}
	return out
}

// wnKindRoots are the synonym sets whose hyponyms are kind nouns, by
// data.noun's offset and the first lemma there (checked, so that another
// version's offsets fail loudly), and the letter of each in the "k"
// lines: things made, diseases, places, organisations and landforms.
// People (agent nouns: sense 1 of "server", "scanner", "loader"),
// animals and plants are no root.
var wnKindRoots = []struct{ offset, lemma, letter string }{
	{"00021939", "artifact", "a"},
	{"14070360", "disease", "d"},
	{"00027167", "location", "l"},
	{"08008335", "organization", "o"},
	{"09287968", "geological_formation", "g"},
}

// wordNetKindLines are the "k" lines: every noun lemma of index.noun of
// one or two words some sense of which has a kind root among its
// hypernyms (@ and @i, followed to the top), as "k" and the roots'
// letters in wnKindRoots' order, in upper case when the lemma's first
// sense (index.noun lists the most frequent first) reaches the root, a
// tab and the lemma ("kaO\tboard": a committee first, and a plank;
// "ka\tserver": sense 1 is a person, senses 3 and 4 a computer and a
// utensil; "kA\tchair": a seat first). A lemma whose senses reach
// none is left out ("test"; "limit" reaches only a place: "kl").
func wordNetKindLines(t *testing.T, data, index []string) []string {
	t.Helper()
	hypernyms := map[string][]string{}
	for _, line := range data {
		if line == "" || strings.HasPrefix(line, "  ") {
			continue
		}
		fs := strings.Fields(line)
		n, err := strconv.ParseInt(fs[3], 16, 32)
		if err != nil {
			t.Fatalf("%s: %v", fs[0], err)
		}
		p := 4 + 2*int(n)
		ptrs, err := strconv.Atoi(fs[p])
		if err != nil {
			t.Fatalf("%s: %v", fs[0], err)
		}
		for i := 0; i < ptrs; i++ {
			sym, off, pos := fs[p+1+4*i], fs[p+2+4*i], fs[p+3+4*i]
			if (sym == "@" || sym == "@i") && pos == "n" {
				hypernyms[fs[0]] = append(hypernyms[fs[0]], off)
			}
		}
		for _, r := range wnKindRoots {
			if fs[0] == r.offset && !strings.EqualFold(fs[4], r.lemma) {
				t.Fatalf("offset %s is %q, not %q: not WordNet 3.0", r.offset, fs[4], r.lemma)
			}
		}
	}
	roots := map[string]string{}
	for _, r := range wnKindRoots {
		roots[r.offset] = r.letter
	}
	reached := map[string]map[string]bool{}
	var reach func(off string) map[string]bool
	reach = func(off string) map[string]bool {
		if r, ok := reached[off]; ok {
			return r
		}
		r := map[string]bool{}
		reached[off] = r // the hierarchy has no cycle; this guards one
		if l, ok := roots[off]; ok {
			r[l] = true
		}
		for _, h := range hypernyms[off] {
			for l := range reach(h) {
				r[l] = true
			}
		}
		return r
	}
	var out []string
	for _, line := range index {
		if line == "" || strings.HasPrefix(line, "  ") {
			continue
		}
		fs := strings.Fields(line)
		lemma := strings.ReplaceAll(fs[0], "_", " ")
		if len(strings.Fields(lemma)) > 2 {
			continue
		}
		ptrs, err := strconv.Atoi(fs[3])
		if err != nil {
			t.Fatalf("%s: %v", fs[0], err)
		}
		got, first := map[string]bool{}, map[string]bool{}
		for i, off := range fs[4+ptrs+2:] {
			for l := range reach(off) {
				got[l] = true
				first[l] = first[l] || i == 0
			}
		}
		letters := ""
		for _, r := range wnKindRoots {
			switch {
			case first[r.letter]:
				letters += strings.ToUpper(r.letter)
			case got[r.letter]:
				letters += r.letter
			}
		}
		if letters != "" {
			out = append(out, "k"+letters+"\t"+lemma)
		}
	}
	return out
}
