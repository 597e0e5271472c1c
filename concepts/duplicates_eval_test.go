package concepts_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/internal/benchdata"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/internal/treetest"
	"github.com/noema-mem/noema/vault"
)

// The labelled duplicate set (testdata/duplicates): real concept names
// (canonical.txt), string-level variants generated from them
// (variants.tsv, rewritten by -update-variants), look-alike pairs that must
// not merge (lookalikes.tsv) and meaning-level variants (meaning.tsv).
var (
	updateVariants = flag.Bool("update-variants", false, "regenerate testdata/duplicates/variants.tsv")
	findRecall     = flag.Bool("find-recall", false, "run TestFindConceptsRecall (a vault of 5,500 concepts, ~10 s)")
	variantsSeed   = flag.Uint64("variants-seed", 0, "evaluate on variants freshly generated with this seed instead of variants.tsv (a held-out check)")
)

const dupData = "testdata/duplicates"

func readLines(t testing.TB, name string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dupData, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.Split(line, "\t"))
	}
	return out
}

// variant kinds, in the order they are tried for a canonical.
var variantKinds = []string{"typo", "plural", "word_order", "generic_word", "accents", "spacing", "typo2"}

// makeVariant derives a variant of kind from name, or "" when the kind
// does not apply.
func makeVariant(name, kind string, r *benchdata.SplitMix64) string {
	ws := strings.Fields(name)
	switch kind {
	case "typo", "typo2":
		// One edit inside a word of 6+ letters, never its first letter.
		var cand []int
		for i, w := range ws {
			if utf8.RuneCountInString(w) >= 6 && isWord(w) {
				cand = append(cand, i)
			}
		}
		if len(cand) == 0 {
			return ""
		}
		i := cand[r.Below(uint64(len(cand)))]
		w := []rune(ws[i])
		p := 1 + int(r.Below(uint64(len(w)-2)))
		op := r.Below(4)
		if kind == "typo2" {
			op = (op + 2) % 4
		}
		switch op {
		case 0: // transposition
			w[p], w[p+1] = w[p+1], w[p]
			if w[p] == w[p+1] {
				return ""
			}
		case 1: // deletion
			w = append(w[:p:p], w[p+1:]...)
		case 2: // doubled letter
			w = append(w[:p+1:p+1], w[p:]...)
		case 3: // substitution by a keyboard neighbour
			w[p] = neighbour(w[p])
		}
		ws[i] = string(w)
	case "plural":
		last := ws[len(ws)-1]
		if !isWord(last) || len(last) < 3 {
			return ""
		}
		switch {
		case strings.HasSuffix(last, "ss"), strings.HasSuffix(last, "sh"), strings.HasSuffix(last, "ch"), strings.HasSuffix(last, "x"):
			last += "es"
		case strings.HasSuffix(last, "s"):
			last = strings.TrimSuffix(last, "s")
		case strings.HasSuffix(last, "y") && !strings.ContainsRune("aeiou", rune(last[len(last)-2])):
			last = last[:len(last)-1] + "ies"
		default:
			last += "s"
		}
		ws[len(ws)-1] = last
	case "word_order":
		if len(ws) < 2 || len(ws) > 3 {
			return ""
		}
		head := ws[len(ws)-1]
		mods := strings.ToLower(strings.Join(ws[:len(ws)-1], " "))
		if strings.HasSuffix(mods, "'s") {
			return ""
		}
		adjective := false
		for _, suf := range []string{"ed", "al", "ive", "ic", "ous", "ar", "nt", "ry", "ep", "ve", "ly", "ic", "ng"} {
			adjective = adjective || strings.HasSuffix(mods, suf)
		}
		if !strings.HasSuffix(mods, "s") && isWord(mods) && !adjective {
			mods += "s"
		}
		return head + " of " + mods
	case "generic_word":
		if len(ws) > 2 {
			return ""
		}
		generic := []string{"algorithm", "system", "method", "technique", "framework", "protocol"}
		return name + " " + generic[r.Below(uint64(len(generic)))]
	case "accents":
		stripped := stripMarks(name)
		if stripped != name {
			return stripped
		}
		for i, w := range ws {
			if len(w) >= 5 && strings.ContainsRune(w, 'e') && isWord(w) {
				ws[i] = strings.Replace(w, "e", "é", 1)
				return strings.Join(ws, " ")
			}
		}
		return ""
	case "spacing":
		if len(ws) == 2 && isWord(ws[0]) && isWord(ws[1]) {
			return ws[0] + strings.ToUpper(ws[1][:1]) + ws[1][1:]
		}
		if len(ws) == 1 {
			rs := []rune(name)
			for i := 1; i < len(rs)-1; i++ {
				if unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i]) {
					return string(rs[:i]) + " " + string(rs[i:])
				}
			}
		}
		return ""
	}
	return strings.Join(ws, " ")
}

func isWord(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return w != ""
}

func stripMarks(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}

var keyboard = map[rune]string{
	'a': "sq", 'b': "vn", 'c': "xv", 'd': "sf", 'e': "wr", 'f': "dg", 'g': "fh", 'h': "gj", 'i': "uo",
	'j': "hk", 'k': "jl", 'l': "k", 'm': "n", 'n': "bm", 'o': "ip", 'p': "o", 'q': "w", 'r': "et",
	's': "ad", 't': "ry", 'u': "yi", 'v': "cb", 'w': "qe", 'x': "zc", 'y': "tu", 'z': "x",
}

func neighbour(c rune) rune {
	if n, ok := keyboard[unicode.ToLower(c)]; ok {
		return rune(n[0])
	}
	return 'x'
}

// TestGenerateVariants rewrites variants.tsv with -update-variants, and
// otherwise checks that it is what the generator makes.
func TestGenerateVariants(t *testing.T) {
	var b strings.Builder
	b.WriteString("# String-level variants of canonical.txt, generated by TestGenerateVariants (-update-variants): canonical\tvariant\tkind\n")
	for _, row := range generateVariants(t, 13) {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", row[0], row[1], row[2])
	}
	path := filepath.Join(dupData, "variants.tsv")
	if *updateVariants {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != b.String() {
		t.Fatalf("variants.tsv is not what the generator makes: run go test ./concepts -run TestGenerateVariants -update-variants")
	}
}

// generateVariants derives two variants of each canonical, rotating
// through the kinds.
func generateVariants(t testing.TB, seed uint64) [][]string {
	r := benchdata.NewSplitMix64(seed)
	var out [][]string
	for i, row := range readLines(t, "canonical.txt") {
		name := row[0]
		made := 0
		for k := 0; k < len(variantKinds) && made < 2; k++ {
			kind := variantKinds[(i+k+int(seed))%len(variantKinds)]
			v := makeVariant(name, kind, r)
			if v == "" || vault.Key(v) == vault.Key(name) {
				continue
			}
			out = append(out, []string{name, v, strings.TrimSuffix(kind, "2")})
			made++
		}
	}
	return out
}

// evalSet is a vault's worth of names with the cluster each belongs to.
type evalSet struct {
	names   []string
	cluster map[string]int // key -> cluster
	kind    map[string]string
	// unlabelled are names no one labelled against each other (real
	// names taken as distractors): a pair of two of them is not scored.
	unlabelled map[string]bool
	// skipped counts the predicted pairs not scored for that.
	skipped int
}

// canonicalSet is an evalSet of the canonicals, each its own cluster (its
// line number), and the number of canonicals read.
func canonicalSet(t testing.TB) (*evalSet, int) {
	t.Helper()
	e := &evalSet{cluster: map[string]int{}, kind: map[string]string{}}
	canon := readLines(t, "canonical.txt")
	for i, row := range canon {
		e.add(row[0], i, "")
	}
	return e, len(canon)
}

func (e *evalSet) add(name string, cluster int, kind string) bool {
	k := vault.Key(name)
	if _, ok := e.cluster[k]; ok {
		return false
	}
	e.cluster[k] = cluster
	e.kind[k] = kind
	e.names = append(e.names, name)
	return true
}

// openEval writes one note per name (mentioned 1 + i%3 times, so that
// targets differ) and indexes the vault.
func openEval(t testing.TB, names []string, extra ...string) *app.App {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	for i, n := range names {
		body := strings.Repeat("[["+n+"]] ", 1+i%3)
		treetest.Write(t, dir, fmt.Sprintf("n/n%04d.md", i), body+"\n")
	}
	// Extra names, 100 to a note.
	for i := 0; i < len(extra); i += 100 {
		var b strings.Builder
		for _, n := range extra[i:min(i+100, len(extra))] {
			b.WriteString("- [[" + n + "]]\n")
		}
		treetest.Write(t, dir, fmt.Sprintf("n/x%04d.md", i), b.String())
	}
	return noematest.OpenSynced(t, dir, app.Options{})
}

// eachPair calls fn with every pair of keys of one cluster, a < b.
func (e *evalSet) eachPair(fn func(a, b string)) {
	byCluster := map[int][]string{}
	for k, c := range e.cluster {
		byCluster[c] = append(byCluster[c], k)
	}
	for _, ks := range byCluster {
		for i := range ks {
			for j := i + 1; j < len(ks); j++ {
				fn(min(ks[i], ks[j]), max(ks[i], ks[j]))
			}
		}
	}
}

type prf struct{ tp, fp, fn int }

func (p prf) precision() float64 { return float64(p.tp) / float64(max(1, p.tp+p.fp)) }
func (p prf) recall() float64    { return float64(p.tp) / float64(max(1, p.tp+p.fn)) }

// score compares the groups' co-membership pairs with the clusters.
func score(e *evalSet, groups []concepts.DupGroup, verdicts ...string) (prf, map[string]int, []string) {
	predicted := map[[2]string]bool{}
	for _, g := range groups {
		if !slices.Contains(verdicts, g.Verdict) {
			continue
		}
		for i := range g.Members {
			for j := i + 1; j < len(g.Members); j++ {
				a, b := vault.Key(g.Members[i].Label), vault.Key(g.Members[j].Label)
				predicted[[2]string{min(a, b), max(a, b)}] = true
			}
		}
	}
	var p prf
	var wrong []string
	e.skipped = 0
	for pair := range predicted {
		if e.unlabelled[pair[0]] && e.unlabelled[pair[1]] {
			e.skipped++
			continue
		}
		if e.cluster[pair[0]] == e.cluster[pair[1]] {
			p.tp++
		} else {
			p.fp++
			wrong = append(wrong, pair[0]+" ~ "+pair[1])
		}
	}
	missedByKind := map[string]int{}
	e.eachPair(func(a, b string) {
		if !predicted[[2]string{a, b}] {
			p.fn++
			missedByKind[e.kind[a]+e.kind[b]]++
		}
	})
	slices.Sort(wrong)
	return p, missedByKind, wrong
}

// TestDuplicatesPrecisionRecall runs analyze_duplicates (builtin embedder)
// over the labelled set: canonicals, their string variants and the
// look-alikes, each its own concept. Pairs in one group are predicted
// duplicates; the truth is "variants of one canonical".
func TestDuplicatesPrecisionRecall(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes a vault of ~1,200 notes")
	}
	e, next := canonicalSet(t)
	clusterOf := func(name string) int {
		if c, ok := e.cluster[vault.Key(name)]; ok {
			return c
		}
		next++
		return next
	}
	variants := readLines(t, "variants.tsv")
	if *variantsSeed != 0 {
		variants = generateVariants(t, *variantsSeed)
	}
	for _, row := range variants {
		e.add(row[1], clusterOf(row[0]), row[2])
	}
	for _, row := range readLines(t, "lookalikes.tsv") {
		e.add(row[0], clusterOf(row[0]), "")
		e.add(row[1], clusterOf(row[1]), "")
	}
	a := openEval(t, e.names)
	res, err := a.Concepts.Duplicates(context.Background(), concepts.DuplicatesInput{Limit: concepts.MaxDuplicateLimit}, a.Semantic)
	if err != nil {
		t.Fatal(err)
	}
	if res.HasMore {
		t.Fatalf("more than %d groups", concepts.MaxDuplicateLimit)
	}
	strict, missed, wrong := score(e, res.Groups, concepts.VerdictMerge)
	all, missedAll, wrongAll := score(e, res.Groups, concepts.VerdictMerge, concepts.VerdictReview)
	t.Logf("%d concepts, %d groups, %d do_not_merge", res.Concepts, res.Total, len(res.DoNotMerge))
	t.Logf("verdict merge:          precision %.3f recall %.3f (tp %d fp %d fn %d)", strict.precision(), strict.recall(), strict.tp, strict.fp, strict.fn)
	t.Logf("verdict merge + review: precision %.3f recall %.3f (tp %d fp %d fn %d)", all.precision(), all.recall(), all.tp, all.fp, all.fn)
	t.Logf("missed (merge) by kind: %v; missed (merge+review): %v", missed, missedAll)
	t.Logf("false pairs (merge+review): %v", wrongAll)
	_ = wrong
	if all.precision() < 0.9 || all.recall() < 0.8 {
		t.Errorf("precision %.3f recall %.3f; want >= 0.9 and >= 0.8", all.precision(), all.recall())
	}
	// Every look-alike that was judged is in do_not_merge, never in a group.
	grouped := map[[2]string]bool{}
	for _, g := range res.Groups {
		for _, p := range g.Pairs {
			grouped[[2]string{vault.Key(p.A.Label), vault.Key(p.B.Label)}] = true
			grouped[[2]string{vault.Key(p.B.Label), vault.Key(p.A.Label)}] = true
		}
	}
	for _, row := range readLines(t, "lookalikes.tsv") {
		if grouped[[2]string{vault.Key(row[0]), vault.Key(row[1])}] {
			t.Errorf("look-alikes %q / %q (%s) proposed as duplicates", row[0], row[1], row[2])
		}
	}
}

// TestDuplicatesMeaning reports recall on meaning-level variants
// (abbreviations, synonyms): the builtin embedder sees spelling only, so
// only acronyms are expected.
func TestDuplicatesMeaning(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes a vault")
	}
	e, _ := canonicalSet(t)
	for _, row := range readLines(t, "meaning.tsv") {
		e.add(row[1], e.cluster[vault.Key(row[0])], "meaning")
	}
	a := openEval(t, e.names)
	res, err := a.Concepts.Duplicates(context.Background(), concepts.DuplicatesInput{Limit: concepts.MaxDuplicateLimit}, a.Semantic)
	if err != nil {
		t.Fatal(err)
	}
	all, _, wrong := score(e, res.Groups, concepts.VerdictMerge, concepts.VerdictReview)
	t.Logf("meaning-level, merge + review: precision %.3f recall %.3f (tp %d fp %d fn %d); false: %v", all.precision(), all.recall(), all.tp, all.fp, all.fn, wrong)
}

// TestFindConceptsRecall measures how often find_concepts puts the
// canonical in its top 20 when queried with a string-level variant, in a
// vault of the canonicals and the look-alikes, with and without the
// second candidate channel.
func TestFindConceptsRecall(t *testing.T) {
	if !*findRecall {
		t.Skip("indexes a vault of 5,500 concepts: run with -find-recall")
	}
	e, _ := canonicalSet(t)
	for _, row := range readLines(t, "lookalikes.tsv") {
		e.add(row[0], -1, "")
		e.add(row[1], -1, "")
	}
	e.add("C++", -2, "")
	// Distractors: 5,000 names made of the canonicals' own words, so that
	// the top 20 is contested as in a real vocabulary.
	var vocab []string
	for _, row := range readLines(t, "canonical.txt") {
		vocab = append(vocab, strings.Fields(row[0])...)
	}
	slices.Sort(vocab)
	vocab = slices.Compact(vocab)
	r := benchdata.NewSplitMix64(5)
	var distractors []string
	for len(distractors) < 5000 {
		n := 1 + int(r.Below(3))
		ws := make([]string, n)
		for i := range ws {
			ws[i] = vocab[r.Below(uint64(len(vocab)))]
		}
		name := strings.Join(ws, " ")
		if e.add(name, -3-len(distractors), "") {
			distractors = append(distractors, name)
		}
	}
	a := openEval(t, e.names[:len(e.names)-len(distractors)], distractors...)
	ctx := context.Background()
	variants := readLines(t, "variants.tsv")
	if *variantsSeed != 0 {
		variants = generateVariants(t, *variantsSeed)
	}
	// The misses, which must be found with the second channel.
	variants = append(variants,
		[]string{"Protein Folding", "folding of proteins", "word_order"},
		[]string{"Git", "Git version control system", "generic_word"},
		[]string{"Raft", "Raft consensus algorithm", "generic_word"},
		[]string{"C++", "C++ programming language", "generic_word"})
	// A variant that is also a concept (a distractor drawn the same) is
	// not a query.
	variants = slices.DeleteFunc(variants, func(row []string) bool {
		_, ok := e.cluster[vault.Key(row[1])]
		return ok
	})
	for _, on := range []bool{false, true} {
		restore := concepts.SetSecondChannel(on)
		hits, n := 0, 0
		missByKind := map[string]int{}
		var missed []string
		for _, row := range variants {
			res, err := a.Concepts.Find(ctx, concepts.FindInput{Query: row[1]})
			if err != nil {
				t.Fatal(err)
			}
			n++
			found := slices.ContainsFunc(res.Candidates, func(c concepts.Candidate) bool { return vault.Key(c.Label) == vault.Key(row[0]) })
			if found {
				hits++
			} else {
				missByKind[row[2]]++
				missed = append(missed, row[1]+" → "+row[0])
			}
		}
		restore()
		t.Logf("second channel %v: canonical in the top 20 for %d of %d variants (%.2f %%); misses by kind %v: %v", on, hits, n, 100*float64(hits)/float64(n), missByKind, missed)
		if on && float64(hits) < 0.995*float64(n) {
			t.Errorf("recall %.4f with the second channel, want >= 0.995", float64(hits)/float64(n))
		}
	}
}
